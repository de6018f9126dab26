/** whoami names the key's member (`memberId`), the id `userId` defaults to (issue 34 item 5). */
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { expectOk } from './helpdesk-helpers';
import { inviteLink, MEM_ID } from './workspace-helpers';

let tp: TestPlatform;
beforeAll(async () => {
  tp = await startTestPlatform();
}, 60_000);
afterAll(async () => tp?.stop(), 60_000);

it("a team's keys name its owner member; an invited member's key names that member", async () => {
  const owner = expectOk(await tp.api.get('/auth/whoami'), 200);
  expect(owner.memberId).toMatch(MEM_ID);
  expect(expectOk(await tp.api.get(`${tp.teamPath}/members/${owner.memberId}`), 200)).toMatchObject({ id: owner.memberId, role: 'owner' });
  for (const k of ['sk_live', 'pk_test', 'pk_live'] as const) expect(expectOk(await tp.api.get('/auth/whoami', { key: tp.team[k] }), 200).memberId).toBe(owner.memberId);

  const invite = expectOk(await tp.api.post(`${tp.teamPath}/invites`, { email: `who-${Date.now()}@example.com` }), 201);
  const { token } = await inviteLink(tp, tp.team.teamId, invite.id);
  const { member, apiKey } = expectOk(await tp.api.withKey(null).post('/invites/accept', { token, name: 'Wren' }), 201);
  const who = expectOk(await tp.api.get('/auth/whoami', { key: apiKey.key }), 200);
  expect(who).toMatchObject({ memberId: member.id, keyId: apiKey.id });
  expect(who.memberId).not.toBe(owner.memberId);
});
