import { randomBytes, randomUUID } from 'node:crypto';
import { ID_PREFIX, type IdKind } from '@helpdesk/contracts';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * Random bytes drawn from a 4 KiB buffer filled by the CSPRNG (as node's randomUUID does): one call
 * into OpenSSL per ~80 ids instead of one per id. Each byte is used once.
 */
const POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
let used = 0;
function randomByte(): number {
  if (used === pool.length) {
    pool = randomBytes(POOL_BYTES);
    used = 0;
  }
  return pool[used++];
}

/** `length` random base62 characters (rejection sampling keeps every character equally likely). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    const byte = randomByte();
    if (byte < 248) out += ALPHABET[byte % 62];
  }
  return out;
}

/** A new prefixed id such as `tkt_3xK…` (24 random characters, ~142 bits). */
export function newId(kind: IdKind): string {
  return `${ID_PREFIX[kind]}_${randomBase62(24)}`;
}

export const newUuid = (): string => randomUUID();
