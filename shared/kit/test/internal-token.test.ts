import { InternalTokens } from '../src';

const claims = {
  teamId: '3f1c2a4e-8b7d-4c2a-9f1e-2b3c4d5e6f70',
  mode: 'test' as const,
  keyId: 'key_abcdefgh',
  keyType: 'secret' as const,
  memberId: null,
  permissions: ['view_tickets' as const],
  requestId: 'req_1',
};

describe('InternalTokens', () => {
  const tokens = new InternalTokens('x'.repeat(32));
  it('round-trips claims', async () => {
    await expect(tokens.verify(await tokens.sign(claims))).resolves.toEqual(claims);
  });
  it('refuses a token signed with another secret, an expired one and garbage', async () => {
    const other = new InternalTokens('y'.repeat(32));
    await expect(tokens.verify(await other.sign(claims))).rejects.toThrow();
    const expired = new InternalTokens('x'.repeat(32), -10);
    await expect(tokens.verify(await expired.sign(claims))).rejects.toThrow();
    await expect(tokens.verify('not.a.jwt')).rejects.toThrow();
  });
  it('refuses a short secret', () => {
    expect(() => new InternalTokens('short')).toThrow(/32/);
  });
});

describe('InternalTokens.mint', () => {
  it('mints, per request, a standard HS256 JWT that jose verifies, with the TTL', async () => {
    const tokens = new InternalTokens('x'.repeat(32), 30);
    const { requestId: _r, ...keyClaims } = claims;
    const a = tokens.mint(keyClaims, 'req_one');
    const b = tokens.mint(keyClaims, 'req_two');
    await expect(tokens.verify(a)).resolves.toEqual({ ...claims, requestId: 'req_one' });
    await expect(tokens.verify(b)).resolves.toEqual({ ...claims, requestId: 'req_two' });
    const header = JSON.parse(Buffer.from(a.split('.')[0], 'base64url').toString());
    const payload = JSON.parse(Buffer.from(a.split('.')[1], 'base64url').toString());
    expect(header).toEqual({ alg: 'HS256', typ: 'JWT' });
    expect(payload.exp - payload.iat).toBe(30);
    await expect(new InternalTokens('x'.repeat(31) + 'y').verify(a)).rejects.toThrow();
  });
  it('refuses a token whose payload was altered after signing', async () => {
    const tokens = new InternalTokens('x'.repeat(32));
    const [h, p, s] = (await tokens.sign(claims)).split('.');
    const altered = Buffer.from(Buffer.from(p, 'base64url').toString().replace('"test"', '"live"')).toString('base64url');
    await expect(tokens.verify(`${h}.${altered}.${s}`)).rejects.toThrow();
  });
});

describe('InternalTokens.mintForKey (one token per key, docs/adr/0019)', () => {
  const { requestId: _r, ...keyClaims } = claims;
  afterEach(() => jest.useRealTimers());
  const fakeDate = () =>
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'queueMicrotask', 'hrtime', 'performance'] });

  it('reuses one token for the same claims; the request id comes from the header', async () => {
    const tokens = new InternalTokens('x'.repeat(32));
    const a = tokens.mintForKey(keyClaims);
    expect(tokens.mintForKey({ ...keyClaims })).toBe(a);
    const payload = JSON.parse(Buffer.from(a.split('.')[1], 'base64url').toString());
    expect(payload.requestId).toBeUndefined();
    await expect(tokens.verify(a, 'req_one')).resolves.toEqual({ ...keyClaims, requestId: 'req_one' });
    // Verified once: the next request with the token is answered from the cache, with its own id.
    expect(tokens.cached(a, 'req_two')).toEqual({ ...keyClaims, requestId: 'req_two' });
  });

  it('mints another token as soon as any minted claim differs (permissions, member, mode, key)', () => {
    const tokens = new InternalTokens('x'.repeat(32));
    const a = tokens.mintForKey(keyClaims);
    const variants = [
      { ...keyClaims, permissions: ['view_tickets' as const, 'manage_tickets' as const] },
      { ...keyClaims, permissions: [] },
      { ...keyClaims, memberId: 'mem_abcdefgh' },
      { ...keyClaims, mode: 'live' as const },
      { ...keyClaims, keyId: 'key_other123' },
    ];
    const minted = variants.map((v) => tokens.mintForKey(v));
    expect(new Set([a, ...minted]).size).toBe(variants.length + 1);
    for (const [i, t] of minted.entries()) {
      const payload = JSON.parse(Buffer.from(t.split('.')[1], 'base64url').toString());
      expect(payload).toMatchObject(variants[i]);
    }
  });

  it('renews the token once half its lifetime has passed', () => {
    fakeDate();
    const tokens = new InternalTokens('x'.repeat(32), 60);
    const a = tokens.mintForKey(keyClaims);
    jest.setSystemTime(Date.now() + 29_000);
    expect(tokens.mintForKey(keyClaims)).toBe(a);
    jest.setSystemTime(Date.now() + 2_000);
    expect(tokens.mintForKey(keyClaims)).not.toBe(a);
  });

  it('refuses a per-key token without a valid request id header', async () => {
    const tokens = new InternalTokens('x'.repeat(32));
    const a = tokens.mintForKey(keyClaims);
    await expect(tokens.verify(a)).rejects.toThrow(/request id/);
    await expect(tokens.verify(a, 'bad id with spaces')).rejects.toThrow();
    await tokens.verify(a, 'req_ok');
    expect(tokens.cached(a, undefined)).toBeNull();
    expect(tokens.cached(a, 'x'.repeat(101))).toBeNull();
  });

  it('forgets a verified token when it expires: it is verified again, and refused', async () => {
    fakeDate();
    const tokens = new InternalTokens('x'.repeat(32), 10);
    const a = tokens.mintForKey(keyClaims);
    await tokens.verify(a, 'req_one');
    expect(tokens.cached(a, 'req_two')).not.toBeNull();
    jest.setSystemTime(Date.now() + 11_000);
    expect(tokens.cached(a, 'req_two')).toBeNull();
    await expect(tokens.verify(a, 'req_two')).rejects.toThrow();
  });

  it('never caches a forged token', async () => {
    const tokens = new InternalTokens('x'.repeat(32));
    const forged = new InternalTokens('y'.repeat(32)).mintForKey(keyClaims);
    await expect(tokens.verify(forged, 'req_one')).rejects.toThrow();
    expect(tokens.cached(forged, 'req_one')).toBeNull();
  });
});
