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
