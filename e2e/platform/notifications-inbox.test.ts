/** Notifications through the whole platform: made from real workspace and ticketing events, read through the gateway. */
import { startTestPlatform, type TeamKeys, type TestPlatform } from '../support/platform';
import { eventually, expectError, expectOk, ISO } from './helpdesk-helpers';
import { addMember, WorkspaceEvents, type TestMember } from './workspace-helpers';

let tp: TestPlatform;
let log: WorkspaceEvents;
let team: TeamKeys;
let owner: { id: string; userId: string };
let agent: TestMember & { userId: string };
/** A key of no member (an operator's): it must name the member (userId defaults to the key's member otherwise). */
let operatorKey: string;
const N = () => `/teams/${team.teamId}/notifications`;
const list = async (userId: string, key = team.sk_test, qs = '') => expectOk(await tp.api.get(`${N()}?userId=${userId}${qs}`, { key }), 200);

beforeAll(async () => {
  tp = await startTestPlatform();
  log = await WorkspaceEvents.start(tp);
  team = await tp.createTeam('Notify Co');
  const members = expectOk(await tp.api.get(`/teams/${team.teamId}/members`, { key: team.sk_test }), 200);
  owner = members.find((m: any) => m.role === 'owner');
  const added = await addMember(tp, log, team, 'agent');
  const again = expectOk(await tp.api.get(`/teams/${team.teamId}/members`, { key: team.sk_test }), 200);
  agent = { ...added, userId: again.find((m: any) => m.id === added.id).userId };
  operatorKey = (await tp.platform.gateway.admin.createKey({ teamId: team.teamId, type: 'secret', mode: 'test', memberId: null })).key;
}, 60_000);
afterAll(async () => {
  await tp?.stop();
}, 60_000);

describe('notifications', () => {
  it('the owner who invited is notified when the invite is accepted', async () => {
    const data = await eventually('invite_accepted', async () => {
      const d = await list(owner.userId);
      return d.length ? d : null;
    });
    expect(data).toEqual([
      {
        id: expect.stringMatching(/^ntf_[A-Za-z0-9]{24}$/), object: 'notification', type: 'invite_accepted', title: `${agent.email} accepted your invitation`,
        body: `${agent.email} joined the team as agent.`, ticketId: null, memberId: owner.id, isRead: false, readAt: null, createdAt: expect.stringMatching(ISO),
      },
    ]);
  });

  it('an internal note mentioning @email notifies that member; unread-count, mark one read, mark all read', async () => {
    const t = expectOk(await tp.api.post(`/teams/${team.teamId}/tickets`, { title: 'Printer on fire' }, { key: team.sk_test }), 201);
    for (const content of [`@${agent.email} can you take this?`, `ping @${agent.email.toUpperCase()}`]) {
      expectOk(await tp.api.post(`/teams/${team.teamId}/tickets/${t.id}/messages`, { content, isInternal: true }, { key: team.sk_test }), 201);
    }
    const mine = await eventually('two mentions', async () => {
      const d = await list(agent.id, agent.key);
      return d.length === 2 ? d : null;
    });
    expect(mine.map((n: any) => [n.type, n.ticketId])).toEqual([['mentioned', t.id], ['mentioned', t.id]]);
    const count = (key = agent.key) => tp.api.get(`${N()}/unread-count?userId=${agent.userId}`, { key });
    expect(expectOk(await count(), 200)).toEqual({ unreadCount: 2, truncated: false });

    const read = expectOk(await tp.api.post(`${N()}/${mine[0].id}/read`, { userId: agent.userId }, { key: agent.key }), 200);
    expect(read).toEqual({ ...mine[0], isRead: true, readAt: expect.stringMatching(ISO) });
    expect((await list(agent.id, agent.key, '&isRead=false')).map((n: any) => n.id)).toEqual([mine[1].id]);
    expect(expectOk(await tp.api.post(`${N()}/mark-all-read`, { userId: agent.id }, { key: agent.key }), 200)).toEqual({ markedRead: 1 });
    expect(expectOk(await count(), 200)).toEqual({ unreadCount: 0, truncated: false });
  });

  it('the invitation mail is sent by the notifications service and its outcome shows on the invite', async () => {
    const invite = expectOk(await tp.api.post(`/teams/${team.teamId}/invites`, { email: 'mailed@example.com' }, { key: team.sk_test }), 201);
    expect(invite.message).toEqual({ status: 'queued', at: null, error: null });
    const shown = await eventually('the message outcome', async () => {
      const pending = expectOk(await tp.api.get(`/teams/${team.teamId}/invites`, { key: team.sk_test }), 200);
      const i = pending.find((p: any) => p.id === invite.id);
      return i?.message.status === 'sent' ? i : null;
    });
    expect(shown.message).toEqual({ status: 'sent', at: expect.stringMatching(ISO), error: null });
  });

  it('notification emails: a member turns them on for themselves', async () => {
    const P = `${N()}/preferences`;
    expect(expectOk(await tp.api.get(`${P}?userId=${agent.userId}`, { key: agent.key }), 200)).toEqual({ memberId: agent.id, email: false });
    expect(expectOk(await tp.api.patch(P, { userId: agent.userId, email: true }, { key: agent.key }), 200)).toEqual({ memberId: agent.id, email: true });
    expectError(await tp.api.patch(P, { userId: agent.userId, email: 1 }, { key: agent.key }), 400, 'invalid_request_error', 'parameter_invalid', 'email');
  });

  it('the live partition, other teams and publishable keys see nothing; bad inputs are clear errors', async () => {
    expect(await list(agent.id, team.sk_live)).toEqual([]);
    expectError(await tp.api.get(`${N()}?userId=${agent.id}`, { key: tp.otherTeam.sk_test }), 403, 'authorization_error', 'team_access_denied');
    expectError(await tp.api.get(`/teams/${tp.otherTeam.teamId}/notifications?userId=${agent.id}`, { key: tp.otherTeam.sk_test }), 404, 'not_found_error', 'resource_not_found', 'userId');
    expectError(await tp.api.get(`${N()}?userId=${agent.id}`, { key: team.pk_test }), 403, 'authorization_error', 'publishable_key_forbidden');
    expectError(await tp.api.post(`${N()}/mark-all-read`, { userId: agent.id }, { key: team.pk_test }), 403, 'authorization_error', 'publishable_key_write');
    expectError(await tp.api.get(N(), { key: operatorKey }), 400, 'invalid_request_error', 'parameter_missing', 'userId');
    expectError(await tp.api.get(`${N()}?userId=${agent.id}&isRead=maybe`, { key: team.sk_test }), 400, 'invalid_request_error', 'parameter_invalid', 'isRead');
    expectError(await tp.api.post(`${N()}/mark-all-read`, {}, { key: operatorKey }), 400, 'invalid_request_error', 'parameter_missing', 'userId');
    expectError(await tp.api.post(`${N()}/ntf_x/read`, { userId: agent.id }, { key: team.sk_test }), 400, 'invalid_request_error', 'invalid_id_format', 'notificationId');
  });

  it('bad inputs on the list and the unread count', async () => {
    const bad = (qs: string, status: number, type: string, code: string, param?: string) =>
      tp.api.get(`${N()}${qs}`, { key: team.sk_test }).then((res) => expectError(res, status, type, code, param));
    await bad('?userId=mem_nobodyhere', 404, 'not_found_error', 'resource_not_found', 'userId');
    await bad('?userId=00000000-0000-4000-8000-000000000000', 404, 'not_found_error', 'resource_not_found', 'userId');
    await bad('?userId=not-a-member-ref', 400, 'invalid_request_error', 'parameter_invalid', 'userId');
    await bad(`?userId=${agent.id}&isRead=1`, 400, 'invalid_request_error', 'parameter_invalid', 'isRead');
    await bad(`?userId=${agent.id}&type=boss_party`, 400, 'invalid_request_error', 'parameter_invalid', 'type');
    await bad(`?userId=${agent.id}&limit=0`, 400, 'invalid_request_error', 'parameter_invalid', 'limit');
    await bad(`?userId=${agent.id}&colour=red`, 400, 'invalid_request_error', 'parameter_invalid', 'colour');
    expectError(await tp.api.get(`${N()}/unread-count`, { key: operatorKey }), 400, 'invalid_request_error', 'parameter_missing', 'userId');
    await bad('/unread-count?userId=mem_nobodyhere', 404, 'not_found_error', 'resource_not_found', 'userId');
    expectError(await tp.api.get(`${N()}/unread-count?userId=${agent.id}`, { key: team.pk_test }), 403, 'authorization_error', 'publishable_key_forbidden');
  });

  it('bad inputs on mark-one-read: other member, other partition, other team, unknown ids, publishable key', async () => {
    const [mine] = await list(agent.id, agent.key);
    const read = (id: string, body: object, key = agent.key, teamPath = N()) => tp.api.post(`${teamPath}/${id}/read`, body, { key });
    expectError(await read(mine.id, {}, operatorKey), 400, 'invalid_request_error', 'parameter_missing', 'userId');
    expectError(await read(mine.id, { userId: 5 }), 400, 'invalid_request_error', 'parameter_invalid', 'userId');
    expectError(await read(mine.id, { userId: agent.id, isRead: true }), 400, 'invalid_request_error', 'parameter_invalid', 'isRead');
    expectError(await read(mine.id, { userId: 'mem_nobodyhere' }), 404, 'not_found_error', 'resource_not_found', 'userId');
    // Another member's notification is a 404 like a missing one; so is one of the other partition.
    expectError(await read(mine.id, { userId: owner.id }), 404, 'not_found_error', 'resource_not_found');
    expectError(await read(mine.id, { userId: agent.id }, team.sk_live), 404, 'not_found_error', 'resource_not_found');
    expectError(await read('ntf_000000000000000000000000', { userId: agent.id }), 404, 'not_found_error', 'resource_not_found');
    expectError(await read(mine.id, { userId: agent.id }, tp.otherTeam.sk_test), 403, 'authorization_error', 'team_access_denied');
    expectError(
      await read(mine.id, { userId: agent.id }, tp.otherTeam.sk_test, `/teams/${tp.otherTeam.teamId}/notifications`),
      404, 'not_found_error', 'resource_not_found', 'userId',
    );
    expectError(await read(mine.id, { userId: agent.id }, team.pk_test), 403, 'authorization_error', 'publishable_key_write');
    // None of that touched it.
    expect((await list(agent.id, agent.key)).find((n: any) => n.id === mine.id)).toEqual(mine);
  });

  it('bad inputs on the preferences', async () => {
    const P = `${N()}/preferences`;
    expectError(await tp.api.get(P, { key: operatorKey }), 400, 'invalid_request_error', 'parameter_missing', 'userId');
    expectError(await tp.api.get(`${P}?userId=mem_nobodyhere`, { key: team.sk_test }), 404, 'not_found_error', 'resource_not_found', 'userId');
    expectError(await tp.api.get(`${P}?userId=${agent.id}`, { key: team.pk_test }), 403, 'authorization_error', 'publishable_key_forbidden');
    expectError(await tp.api.get(`/teams/${tp.otherTeam.teamId}/notifications/preferences?userId=${agent.id}`, { key: team.sk_test }), 403, 'authorization_error', 'team_access_denied');
    expectError(await tp.api.patch(P, { email: true }, { key: operatorKey }), 400, 'invalid_request_error', 'parameter_missing', 'userId');
    expectError(await tp.api.patch(P, { userId: agent.id }, { key: team.sk_test }), 400, 'invalid_request_error', 'parameter_missing', 'email');
    expectError(await tp.api.patch(P, { userId: agent.id, email: 'yes' }, { key: team.sk_test }), 400, 'invalid_request_error', 'parameter_invalid', 'email');
    expectError(await tp.api.patch(P, { userId: agent.id, email: true, sms: true }, { key: team.sk_test }), 400, 'invalid_request_error', 'parameter_invalid', 'sms');
    expectError(await tp.api.patch(P, { userId: 'mem_nobodyhere', email: true }, { key: team.sk_test }), 404, 'not_found_error', 'resource_not_found', 'userId');
    expectError(await tp.api.patch(P, { userId: agent.id, email: false }, { key: team.pk_test }), 403, 'authorization_error', 'publishable_key_write');
  });
});
