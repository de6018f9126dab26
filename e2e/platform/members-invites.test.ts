import { startTestPlatform, type TeamKeys, type TestPlatform } from '../support/platform';
import { expectError, expectOk, ISO } from './helpdesk-helpers';
import { INV_ID, inviteLink, MEM_ID, WorkspaceEvents } from './workspace-helpers';

let tp: TestPlatform;
let log: WorkspaceEvents;
let team: TeamKeys;
const invites = () => `/teams/${team.teamId}/invites`;
const post = (body: unknown, key = team.sk_test) => tp.api.post(invites(), body, { key });
const accept = (body: unknown) => tp.api.withKey(null).post('/invites/accept', body);
const pending = async () => expectOk(await tp.api.get(invites(), { key: team.sk_test }), 200).map((i: any) => i.email);

let n = 0;
const email = () => `person${++n}-${Date.now()}@example.com`;

/** `member.invited` for an invite, and the link its message would carry (asked as the notifications service will). */
async function tokenOf(inviteId: string): Promise<{ token: string; acceptUrl: string; event: any }> {
  const [event] = await log.waitFor((e) => e.type === 'member.invited' && e.data.invite.id === inviteId, 1, 'member.invited');
  return { ...(await inviteLink(tp, team.teamId, inviteId)), event };
}

beforeAll(async () => {
  tp = await startTestPlatform();
  log = await WorkspaceEvents.start(tp);
  team = await tp.createTeam('Invite Co');
}, 60_000);
afterAll(async () => {
  await tp?.stop();
}, 60_000);

describe('invites', () => {
  it('POST answers the pending invite (role agent by default), emits member.invited with team and inviter but never a token', async () => {
    const address = email();
    const res = await post({ email: address });
    const invite = expectOk(res, 201);
    expect(invite).toEqual({
      id: expect.stringMatching(INV_ID), email: address, role: 'agent', status: 'pending', invitedBy: expect.stringMatching(MEM_ID),
      message: { status: 'queued', at: null, error: null }, expiresAt: expect.stringMatching(ISO), createdAt: expect.stringMatching(ISO),
    });
    expect(Date.parse(invite.expiresAt) - Date.parse(invite.createdAt)).toBe(7 * 24 * 3600 * 1000);
    const { event, token, acceptUrl } = await tokenOf(invite.id);
    expect(event).toMatchObject({ requestId: res.body.meta.requestId, mode: 'test', data: { invite, teamName: 'Invite Co', inviterName: 'Invite Co owner' } });
    expect(Object.keys(event.data).sort()).toEqual(['invite', 'inviterName', 'teamName']);
    expect(acceptUrl).toBe(`http://127.0.0.1:8080/invites/accept?token=${token}`);
    expect(token).toMatch(new RegExp(`^hdinv_${team.teamId.replace(/-/g, '')}_[A-Za-z0-9]{40}$`));
    expect(await pending()).toContain(address);
  });

  it('accepting makes the member with the invited role and answers its first secret key, shown once', async () => {
    const address = email();
    const invite = expectOk(await post({ email: address, role: 'manager' }, team.sk_live), 201);
    const { token } = await tokenOf(invite.id);
    const res = await accept({ token, name: 'Mia Manager', avatarUrl: 'https://example.com/mia.png' });
    const { member, apiKey } = expectOk(res, 201);
    expect(member).toMatchObject({ id: expect.stringMatching(MEM_ID), email: address, name: 'Mia Manager', role: 'manager', roleDisplayName: 'Captain', avatarUrl: 'https://example.com/mia.png', level: 1, xp: 0 });
    // the first key is in the partition of the key that invited
    expect(apiKey).toMatchObject({ object: 'api_key', type: 'secret', mode: 'live', memberId: member.id, scopes: null, expiresAt: null });
    expect(apiKey.key).toMatch(/^sk_live_[A-Za-z0-9]{40}$/);
    const who = expectOk(await tp.api.get('/auth/whoami', { key: apiKey.key }), 200);
    expect(who).toMatchObject({ teamId: team.teamId, keyId: apiKey.id, environment: 'live' });
    const events = await log.waitFor((e) => e.requestId === res.body.meta.requestId && e.type !== 'api_key.created', 2, 'join events');
    expect(events.map((e) => [e.type, e.mode, e.actor])).toEqual([
      ['member.joined', 'live', { type: 'member', id: member.id }],
      ['invite.accepted', 'live', { type: 'member', id: member.id }],
    ]);
    expect(events[0].data).toMatchObject({ via: 'invite', inviteId: invite.id });
    expect(await pending()).not.toContain(address);
    // used: refused with its own code, and no second member
    expectError(await accept({ token, name: 'Again' }), 409, 'conflict_error', 'invite_already_accepted', 'token');
    const list = expectOk(await tp.api.get(`/teams/${team.teamId}/members`, { key: team.sk_test }), 200);
    expect(list.filter((m: any) => m.email === address)).toHaveLength(1);
  });

  it('a revoked invite leaves the list, emits invite.revoked, and its link answers 410 invite_revoked', async () => {
    const invite = expectOk(await post({ email: email() }), 201);
    const { token } = await tokenOf(invite.id);
    const res = await tp.api.delete(`${invites()}/${invite.id}`, { key: team.sk_test });
    expect(expectOk(res, 200)).toEqual({ id: invite.id, deleted: true });
    const [e] = await log.waitForRequest(res.body.meta.requestId);
    expect(e).toMatchObject({ type: 'invite.revoked', data: { invite: { id: invite.id, status: 'revoked' } } });
    expect(await pending()).not.toContain(invite.email);
    expectError(await accept({ token, name: 'Late' }), 410, 'invalid_request_error', 'invite_revoked', 'token');
    expectError(await tp.api.delete(`${invites()}/${invite.id}`, { key: team.sk_test }), 404, 'not_found_error', 'resource_not_found');
  });

  it('an expired invite leaves the list, its link answers 410 invite_expired, and the email can be invited again', async () => {
    const address = email();
    const invite = expectOk(await post({ email: address, expiresInHours: 1 }), 201);
    const { token } = await tokenOf(invite.id);
    // an hour is long for a test: move the expiry into the past where the service keeps it
    await tp.platform.workspace.conn.collection('invites').updateOne({ _id: invite.id } as any, { $set: { expiresAt: new Date(Date.now() - 1000) } });
    expect(await pending()).not.toContain(address);
    expectError(await accept({ token, name: 'Late' }), 410, 'invalid_request_error', 'invite_expired', 'token');
    expectOk(await post({ email: address }), 201);
  });

  it('a new link replaces the earlier one: the old token is 404', async () => {
    const invite = expectOk(await post({ email: email() }), 201);
    const { token: first } = await tokenOf(invite.id);
    const { token: second } = await inviteLink(tp, team.teamId, invite.id);
    expectError(await accept({ token: first, name: 'Old link' }), 404, 'not_found_error', 'resource_not_found', 'token');
    expect(expectOk(await accept({ token: second, name: 'New link' }), 201).member.email).toBe(invite.email);
  });

  it('an unknown or malformed token is 404 param token; a bad body is 400', async () => {
    expectError(await accept({ token: `hdinv_${team.teamId.replace(/-/g, '')}_${'A'.repeat(40)}`, name: 'X' }), 404, 'not_found_error', 'resource_not_found', 'token');
    expectError(await accept({ token: 'not-a-token', name: 'X' }), 404, 'not_found_error', 'resource_not_found', 'token');
    expectError(await accept({ name: 'X' }), 400, 'invalid_request_error', 'parameter_missing', 'token');
    expectError(await accept({ token: 'x' }), 400, 'invalid_request_error', 'parameter_missing', 'name');
    expectError(await accept({ token: 5, name: 'X' }), 400, 'invalid_request_error', 'parameter_invalid', 'token');
    expectError(await accept({ token: 'x', name: 'X', role: 'owner' }), 400, 'invalid_request_error', 'parameter_invalid', 'role');
    expectError(await tp.api.withKey(null).post('/invites/accept', undefined, { rawBody: '{"token":', headers: { 'content-type': 'application/json' } }), 400, 'invalid_request_error', 'invalid_json');
  });

  it('a current member or a second pending invite for the email is 409 param email (any case); nothing emitted', async () => {
    const address = email();
    expectOk(await post({ email: address }), 201);
    const again = await post({ email: address.toUpperCase() });
    expectError(again, 409, 'conflict_error', 'resource_conflict', 'email');
    const [owner] = expectOk(await tp.api.get(`/teams/${team.teamId}/members`, { key: team.sk_test, query: { role: 'owner' } }), 200);
    const member = await post({ email: owner.email });
    expectError(member, 409, 'conflict_error', 'resource_conflict', 'email');
    await log.settle(tp);
    expect([...log.ofRequest(again.body.error.request_id), ...log.ofRequest(member.body.error.request_id)]).toEqual([]);
  });

  it.each([
    ['a missing email', {}, 400, 'parameter_missing', 'email'],
    ['a malformed email', { email: 'nope' }, 400, 'parameter_invalid', 'email'],
    ['role owner', { email: 'o@example.com', role: 'owner' }, 400, 'parameter_invalid', 'role'],
    ['an unknown role', { email: 'o@example.com', role: 'wizard' }, 400, 'parameter_invalid', 'role'],
    ['a lifetime over 30 days', { email: 'o@example.com', expiresInHours: 721 }, 400, 'parameter_invalid', 'expiresInHours'],
    ['an unknown field', { email: 'o@example.com', message: 'hi' }, 400, 'parameter_invalid', 'message'],
  ])('POST refuses %s; nothing written', async (_n, body, status, code, param) => {
    const res = await post(body);
    expectError(res, status, 'invalid_request_error', code, param);
    expect(await pending()).not.toContain('o@example.com');
  });

  it('needs manage_members to invite and revoke, view_members to list; publishable keys and other teams are refused', async () => {
    const invite = expectOk(await post({ email: email(), role: 'spectator' }), 201);
    const { token } = await tokenOf(invite.id);
    const spectatorKey = expectOk(await accept({ token, name: 'Sam' }), 201).apiKey.key;
    expectError(await post({ email: email() }, spectatorKey), 403, 'authorization_error', 'insufficient_permissions');
    expect((await tp.api.get(invites(), { key: spectatorKey })).status).toBe(200);
    expectError(await post({ email: email() }, team.pk_test), 403, 'authorization_error', 'publishable_key_write');
    expectError(await tp.api.get(invites(), { key: team.pk_test }), 403, 'authorization_error', 'publishable_key_forbidden');
    expectError(await post({ email: email() }, tp.otherTeam.sk_test), 403, 'authorization_error', 'team_access_denied');
    const open = expectOk(await post({ email: email() }), 201);
    expectError(await tp.api.delete(`${invites()}/${open.id}`, { key: spectatorKey }), 403, 'authorization_error', 'insufficient_permissions');
    expectError(await tp.api.delete(`/teams/${tp.otherTeam.teamId}/invites/${open.id}`, { key: tp.otherTeam.sk_test }), 404, 'not_found_error', 'resource_not_found');
    expect(await pending()).toContain(open.email);
  });
});
