import { expectError, useHarness, TEAM_A, TEAM_B, type Harness } from './helpers';

/** The gateway's questions (docs/adr/0012, 0013), asked with a token it mints for the team. */
let h: Harness;
const gateway = (teamId = TEAM_A) => ({ as: { teamId, mode: 'live' as const, keyType: 'internal' as const, permissions: [], memberId: null } });
const owner = { name: 'Olga Owner', email: 'Olga@Example.com', teamName: 'Team A', teamSlug: 'team-a' };

useHarness((started) => (h = started));

test('a team without an owner has no settings and no member: the look-up says so', async () => {
  const r = await h.api('GET', '/internal/access?memberId=mem_nobody0000000000000000', gateway(TEAM_B));
  expect(r.status).toBe(200);
  expect(r.body.data).toEqual({ team: null, member: null });
});

test('createTeamOwner makes the owner and the settings once; a retry answers the same owner and emits nothing', async () => {
  const first = await h.api('POST', '/internal/owner', { ...gateway(), body: owner });
  expect(first.status).toBe(201);
  expect(first.body.data).toMatchObject({ name: 'Olga Owner', email: 'Olga@Example.com', role: 'owner', level: 1, xp: 0 });
  expect((await h.eventsOf(first.requestId)).map((e) => [e.type, e.data.via])).toEqual([['member.joined', 'team_created']]);
  const again = await h.api('POST', '/internal/owner', { ...gateway(), body: { ...owner, name: 'Someone else' } });
  expect(again.body.data.id).toBe(first.body.data.id);
  expect(await h.eventsOf(again.requestId)).toEqual([]);
  const access = await h.api('GET', `/internal/access?memberId=${first.body.data.id}`, gateway());
  expect(access.body.data).toEqual({ team: { name: 'Team A', slug: 'team-a', subscriptionStatus: 'active' }, member: { id: first.body.data.id, role: 'owner', permissions: first.body.data.permissions } });
  // the same slug for another team is a conflict, nothing made
  const taken = await h.api('POST', '/internal/owner', { ...gateway(TEAM_B), body: owner });
  expect(taken.status).toBe(409);
  expect((await h.api('GET', '/internal/access', gateway(TEAM_B))).body.data).toEqual({ team: null, member: null });
});

test('recordApiKeyEvent emits api_key.created / api_key.revoked with the caller as actor', async () => {
  const apiKey = {
    id: 'key_abcdefgh12345678', prefix: 'sk_test_AbCd', type: 'secret', mode: 'test', name: null, scopes: null, memberId: 'mem_member000001',
    createdAt: new Date().toISOString(), expiresAt: null, revokedAt: null,
  };
  const r = await h.api('POST', '/internal/api-key-events', { body: { type: 'api_key.created', apiKey } });
  expect(r.status).toBe(201);
  const [e] = await h.eventsOf(r.requestId);
  expect(e).toMatchObject({ id: r.body.data.eventId, type: 'api_key.created', mode: 'test', actor: { type: 'member', id: 'mem_member000001' }, data: { apiKey } });
  expectError(await h.api('POST', '/internal/api-key-events', { body: { type: 'api_key.deleted', apiKey } }), 400, 'parameter_invalid', 'type');
});

test("recordInviteMessage keeps the message's outcome on the invite and emits invite.message_recorded", async () => {
  const made = await h.api('POST', '/teams/{team}/invites', { body: { email: 'new@example.com' } });
  expect(made.status).toBe(201);
  expect(made.body.data.message).toEqual({ status: 'queued', at: null, error: null });
  const path = `/internal/invites/${made.body.data.id}/message`;
  const failed = await h.api('POST', path, { body: { status: 'failed', error: 'mailbox unavailable' } });
  expect(failed.status).toBe(200);
  expect(failed.body.data.message).toEqual({ status: 'failed', at: expect.any(String), error: 'mailbox unavailable' });
  expect((await h.eventsOf(failed.requestId)).map((e) => [e.type, e.data.invite.message.status])).toEqual([['invite.message_recorded', 'failed']]);
  const sent = await h.api('POST', path, { body: { status: 'sent', error: 'ignored' } });
  expect(sent.body.data.message).toMatchObject({ status: 'sent', error: null });
  const listed = (await h.api('GET', '/teams/{team}/invites')).body.data.find((i: any) => i.id === made.body.data.id);
  expect(listed.message.status).toBe('sent');
  expectError(await h.api('POST', path, { body: { status: 'bounced' } }), 400, 'parameter_invalid', 'status');
  expectError(await h.api('POST', '/internal/invites/inv_000000000000000000000000/message', { body: { status: 'sent' } }), 404, 'resource_not_found');
});

test('internal operations refuse calls without a valid token and publishable keys', async () => {
  expectError(await h.api('GET', '/internal/access', { as: null }), 401, 'internal_token_invalid');
  expectError(await h.api('GET', '/internal/access', { as: { keyType: 'publishable' } }), 403, 'insufficient_permissions');
});
