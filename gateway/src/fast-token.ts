import { createHmac } from 'node:crypto';
import { INTERNAL_TOKEN_AUDIENCE, INTERNAL_TOKEN_ISSUER, type InternalClaims } from '@helpdesk/contracts';
import type { InternalTokens } from '@helpdesk/kit';

/** Per-key part of the claims; the request id changes per request. */
export type KeyClaims = Omit<InternalClaims, 'requestId'>;

export type TokenMinter = (claims: KeyClaims, requestId: string) => Promise<string> | string;

const HEADER_B64 = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');

/**
 * kit's InternalTokens.sign goes through jose and WebCrypto: ~100 µs of CPU per request on this
 * machine, the largest single cost in the gateway. This mints the same HS256 JWT (same header,
 * claims, issuer, audience, iat/exp) with node:crypto in a few µs, caching each key's claim JSON.
 * It needs InternalTokens' secret and TTL, which kit keeps private; `createTokenMinter` checks
 * that `tokens.verify` accepts what it mints and otherwise falls back to `tokens.sign`.
 */
export async function createTokenMinter(tokens: InternalTokens): Promise<{ mint: TokenMinter; fast: boolean }> {
  const slow: TokenMinter = (claims, requestId) => tokens.sign({ ...claims, requestId });
  const internals = tokens as unknown as { key?: unknown; ttlSeconds?: unknown };
  if (!(internals.key instanceof Uint8Array) || typeof internals.ttlSeconds !== 'number') return { mint: slow, fast: false };
  const secret = Buffer.from(internals.key);
  const ttl = internals.ttlSeconds;
  const tail = `,"iss":${JSON.stringify(INTERNAL_TOKEN_ISSUER)},"aud":${JSON.stringify(INTERNAL_TOKEN_AUDIENCE)},"iat":`;
  const cache = new WeakMap<KeyClaims, string>();
  const fast: TokenMinter = (claims, requestId) => {
    let head = cache.get(claims);
    if (head === undefined) {
      head = JSON.stringify(claims).slice(0, -1);
      cache.set(claims, head);
    }
    const now = Math.floor(Date.now() / 1000);
    const payload = `${head},"requestId":${JSON.stringify(requestId)}${tail}${now},"exp":${now + ttl}}`;
    const input = `${HEADER_B64}.${Buffer.from(payload).toString('base64url')}`;
    return `${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`;
  };
  try {
    const probe: KeyClaims = { teamId: '00000000-0000-4000-8000-000000000000', mode: 'test', keyId: 'key_probe', keyType: 'secret', memberId: null, permissions: ['view_tickets'] };
    const back = await tokens.verify(await fast(probe, 'req_probe'));
    if (back.requestId === 'req_probe' && back.teamId === probe.teamId && back.permissions[0] === 'view_tickets') return { mint: fast, fast: true };
  } catch {
    // fall through to jose
  }
  return { mint: slow, fast: false };
}
