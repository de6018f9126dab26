import { InternalTokens } from '@helpdesk/kit';
import { createTokenMinter, type KeyClaims } from '../src/fast-token';
import { SECRET } from './helpers';

const claims: KeyClaims = {
  teamId: '3f1c1d7e-8d5c-4a5e-9f3e-1a2b3c4d5e6f',
  mode: 'live',
  keyId: 'key_abcdefgh',
  keyType: 'publishable',
  memberId: 'mem_abcdefgh',
  permissions: ['view_articles', 'view_community'],
};

it('mints tokens kit verifies, with the same claims and a TTL', async () => {
  const tokens = new InternalTokens(SECRET, 30);
  const { mint, fast } = await createTokenMinter(tokens);
  expect(fast).toBe(true);
  const token = await mint(claims, 'req_abcdefgh');
  expect(await tokens.verify(token)).toEqual({ ...claims, requestId: 'req_abcdefgh' });
  const payload = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString());
  expect(payload.exp - payload.iat).toBe(30);
  // another secret does not accept it
  await expect(new InternalTokens(SECRET + 'x').verify(token)).rejects.toThrow();
});

it('falls back to InternalTokens.sign when it cannot mint compatible tokens', async () => {
  const tokens = new InternalTokens(SECRET);
  const opaque = { sign: tokens.sign.bind(tokens), verify: tokens.verify.bind(tokens) } as unknown as InternalTokens;
  const { mint, fast } = await createTokenMinter(opaque);
  expect(fast).toBe(false);
  expect(await tokens.verify(await mint(claims, 'req_x'))).toMatchObject({ requestId: 'req_x' });
});
