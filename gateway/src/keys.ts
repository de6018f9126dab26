import { createHash, timingSafeEqual } from 'node:crypto';
import { randomBase62 } from '@helpdesk/kit';
import type { Partition } from '@helpdesk/contracts';

export type KeyType = 'secret' | 'publishable';

/** Random characters after the prefix (base62, ~238 bits). */
export const KEY_RANDOM_LENGTH = 40;
/** Characters of the random part kept in the non-secret listing prefix (`sk_test_AbCd`). */
const LISTING_CHARS = 4;

const PREFIXES: Record<string, { type: KeyType; mode: Partition }> = {
  sk_test_: { type: 'secret', mode: 'test' },
  sk_live_: { type: 'secret', mode: 'live' },
  pk_test_: { type: 'publishable', mode: 'test' },
  pk_live_: { type: 'publishable', mode: 'live' },
};

export const keyPrefix = (type: KeyType, mode: Partition) => `${type === 'secret' ? 'sk' : 'pk'}_${mode}_`;

/** The kind a key's prefix names, or null when it has no recognised prefix. */
export function kindOf(key: string): { type: KeyType; mode: Partition } | null {
  return PREFIXES[key.slice(0, 8)] ?? null;
}

/** Prefix plus 32 or more base62 characters. */
const BODY_RE = /^[A-Za-z0-9]{32,128}$/;
export const hasValidBody = (key: string) => BODY_RE.test(key.slice(8));

export function generateKey(type: KeyType, mode: Partition): { key: string; hash: string; listingPrefix: string } {
  const key = keyPrefix(type, mode) + randomBase62(KEY_RANDOM_LENGTH);
  return { key, hash: hashKey(key), listingPrefix: key.slice(0, 8 + LISTING_CHARS) };
}

export const hashKey = (key: string): string => createHash('sha256').update(key).digest('hex');

/** Constant-time comparison of two hex sha256 digests. */
export function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && x.length > 0 && timingSafeEqual(x, y);
}
