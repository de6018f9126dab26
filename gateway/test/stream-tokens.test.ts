/** Stream tokens (docs/adr/0031): sealed by the gateway, opened only with the same secret, refused once expired. */
import { ApiError } from '@helpdesk/kit';
import type { KeyResolver, ResolvedKey } from '../src/auth';
import { StreamTokens } from '../src/stream-tokens/stream-tokens';

const SECRET = 'a'.repeat(40);
const issuing = { key: { id: 'key_1' } } as unknown as ResolvedKey;
/** Long enough that a sealed token cannot hold it by chance (a 2-character hash would, now and then). */
const KEY_HASH = 'hash-of-the-issuing-key-0123456789';
const resolver = { authenticateHash: async (hash: string) => (hash === KEY_HASH ? issuing : Promise.reject(new ApiError('invalid_api_key', 'Invalid API key provided.'))) };
const tokens = new StreamTokens(SECRET, resolver as unknown as KeyResolver);

async function refusal(token: string): Promise<ApiError> {
  const err = await tokens.authenticate(token).then(() => null, (e: unknown) => e);
  expect(err).toBeInstanceOf(ApiError);
  return err as ApiError;
}

describe('stream tokens', () => {
  it('open what they sealed: the issuing key and the patterns', async () => {
    const token = tokens.seal({ keyHash: KEY_HASH, types: 'ticket.*', expiresAtMs: Date.now() + 60_000 });
    expect(token).toMatch(/^st_[A-Za-z0-9_-]+$/);
    expect(token).not.toContain(KEY_HASH);
    const { auth, claims } = await tokens.authenticate(token);
    expect(auth).toBe(issuing);
    expect(claims).toEqual({ keyHash: KEY_HASH, types: 'ticket.*', expiresAtMs: expect.any(Number) });
  });

  it('refuse an altered, cut or foreign token (401 invalid_api_key, param token)', async () => {
    const token = tokens.seal({ keyHash: KEY_HASH, types: null, expiresAtMs: Date.now() + 60_000 });
    const flipped = token.slice(0, 10) + (token[10] === 'A' ? 'B' : 'A') + token.slice(11);
    const foreign = new StreamTokens('b'.repeat(40), resolver as unknown as KeyResolver).seal({ keyHash: KEY_HASH, types: null, expiresAtMs: Date.now() + 60_000 });
    for (const bad of [flipped, token.slice(0, -4), foreign, 'st_', 'nonsense', `${token}x`]) {
      const err = await refusal(bad);
      expect([err.status, err.code, err.param]).toEqual([401, 'invalid_api_key', 'token']);
    }
  });

  it('refuse an expired token (401 key_expired) and a token whose key is revoked (401 invalid_api_key)', async () => {
    const expired = await refusal(tokens.seal({ keyHash: KEY_HASH, types: null, expiresAtMs: Date.now() - 1 }));
    expect([expired.status, expired.code, expired.param]).toEqual([401, 'key_expired', 'token']);
    const revoked = await refusal(tokens.seal({ keyHash: 'h2', types: null, expiresAtMs: Date.now() + 60_000 }));
    expect([revoked.status, revoked.code]).toEqual([401, 'invalid_api_key']);
  });
});
