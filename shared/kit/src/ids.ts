import { randomBytes, randomUUID } from 'node:crypto';
import { ID_PREFIX, type IdKind } from '@helpdesk/contracts';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** `length` random base62 characters (rejection sampling keeps every character equally likely). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248) out += ALPHABET[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

/** A new prefixed id such as `tkt_3xK…` (24 random characters, ~142 bits). */
export function newId(kind: IdKind): string {
  return `${ID_PREFIX[kind]}_${randomBase62(24)}`;
}

export const newUuid = (): string => randomUUID();
