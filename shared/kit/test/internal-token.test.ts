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
