import { ROLE_PERMISSIONS } from '@helpdesk/contracts';
import { startTestPlatform, type TeamKeys, type TestPlatform } from '../support/platform';
import { eventually } from '@helpdesk/testing';
import { expectError, expectOk, ISO } from './helpdesk-helpers';
import { addMember, MEM_ID, MEMBER_KEYS, WorkspaceEvents } from './workspace-helpers';

let tp: TestPlatform;
let log: WorkspaceEvents;
let team: TeamKeys;
const members = () => `/teams/${team.teamId}/members`;
const get = (path: string, key = team.sk_test, query?: Record<string, string>) => tp.api.get(path, { key, query });

beforeAll(async () => {
  tp = await startTestPlatform();
  log = await WorkspaceEvents.start(tp);
  team = await tp.createTeam('Roles Inc');
}, 60_000);
afterAll(async () => {
  await tp?.stop();
}, 60_000);

/** The gateway caches a key's role for at most 5 seconds (docs/adr/0012): polled until the answer is `status`, never slept. */
const withinKeyCacheBound = (what: string, call: () => Promise<{ status: number }>, status: number) =>
  eventually(what, async () => (await call()).status === status, 8_000);

describe('members', () => {
  it('a new team has exactly one member, its owner, and the operator keys belong to it', async () => {
    const res = await get(members());
    const list = expectOk(res, 200);
    expect(res.body.pagination).toEqual({ page: 1, pageSize: 20, total: 1, totalPages: 1, hasMore: false });
    expect(res.body.meta.pagination).toBeUndefined();
    expect(list).toHaveLength(1);
    const [owner] = list;
    expect(Object.keys(owner).sort()).toEqual(MEMBER_KEYS);
    expect(owner).toMatchObject({ role: 'owner', roleDisplayName: 'Guild Master', level: 1, xp: 0, name: 'Roles Inc owner' });
    expect(owner.id).toMatch(MEM_ID);
    expect(owner.joinedAt).toMatch(ISO);
    expect(owner.permissions).toEqual([...ROLE_PERMISSIONS.owner]);
    const keys = expectOk(await get(`/teams/${team.teamId}/api-keys`), 200);
    expect(keys.map((k: any) => k.memberId)).toEqual([owner.id, owner.id]);
    // per team: the live key sees the same member
    expect(expectOk(await get(members(), team.sk_live), 200).map((m: any) => m.id)).toEqual([owner.id]);
    expect(expectOk(await get(`${members()}/${owner.id}`), 200)).toEqual(owner);
  });

  it('lists with the role filter and pages; a new member has the role set of its role', async () => {
    const agent = await addMember(tp, log, team, 'agent');
    const spectator = await addMember(tp, log, team, 'spectator');
    const got = expectOk(await get(`${members()}/${spectator.id}`), 200);
    expect(got).toMatchObject({ role: 'spectator', roleDisplayName: 'Scout', permissions: [...ROLE_PERMISSIONS.spectator], email: spectator.email });
    expect(expectOk(await get(members(), team.sk_test, { role: 'agent' }), 200).map((m: any) => m.id)).toEqual([agent.id]);
    const page2 = await get(members(), team.sk_test, { page: '2', pageSize: '1' });
    expect(expectOk(page2, 200).map((m: any) => m.id)).toEqual([agent.id]);
    expect(page2.body.pagination).toMatchObject({ page: 2, pageSize: 1, total: 3, totalPages: 3, hasMore: true });
  });

  it.each([
    ['an unknown role filter', { role: 'wizard' }, 'role'],
    ['a page size over 100', { pageSize: '101' }, 'pageSize'],
    ['an unknown query parameter', { sort: 'name' }, 'sort'],
  ])('GET /members refuses %s', async (_n, query, param) => {
    expectError(await get(members(), team.sk_test, query), 400, 'invalid_request_error', 'parameter_invalid', param);
  });

  it('another team, a publishable key, an unknown or malformed id are refused', async () => {
    const [owner] = expectOk(await get(members()), 200);
    expectError(await get(members(), tp.otherTeam.sk_test), 403, 'authorization_error', 'team_access_denied');
    expectError(await get(`/teams/${tp.otherTeam.teamId}/members/${owner.id}`, tp.otherTeam.sk_test), 404, 'not_found_error', 'resource_not_found');
    expectError(await get(members(), team.pk_test), 403, 'authorization_error', 'publishable_key_forbidden');
    expectError(await get(`${members()}/mem_000000000000000000000000`), 404, 'not_found_error', 'resource_not_found');
    expectError(await get(`${members()}/nope`), 400, 'invalid_request_error', 'invalid_id_format', 'memberId');
  });
});

describe('roles', () => {
  it('PATCH answers {id, role}, emits member.role_changed, and the member\'s key carries the new role at the gateway', async () => {
    const spectator = await addMember(tp, log, team, 'spectator');
    const ticket = { title: 'Printer on fire' };
    expectError(await tp.api.post(`/teams/${team.teamId}/tickets`, ticket, { key: spectator.key }), 403, 'authorization_error', 'insufficient_permissions');
    const res = await tp.api.patch(`${members()}/${spectator.id}`, { role: 'agent' }, { key: team.sk_test });
    expect(expectOk(res, 200)).toEqual({ id: spectator.id, role: 'agent' });
    const [e] = await log.waitForRequest(res.body.meta.requestId);
    expect(e).toMatchObject({ type: 'member.role_changed', mode: 'test', data: { previousRole: 'spectator', member: { id: spectator.id, role: 'agent', roleDisplayName: 'Adventurer' } } });
    await withinKeyCacheBound('the key may write tickets', () => tp.api.post(`/teams/${team.teamId}/tickets`, ticket, { key: spectator.key }), 201);
    expect(expectOk(await get(`${members()}/${spectator.id}`), 200).permissions).toEqual([...ROLE_PERMISSIONS.agent]);
  });

  it('nobody is made owner (400 role); the owner\'s role cannot change (409); nothing written or emitted', async () => {
    const agent = await addMember(tp, log, team, 'agent');
    const [owner] = expectOk(await get(members(), team.sk_test, { role: 'owner' }), 200);
    const a = await tp.api.patch(`${members()}/${agent.id}`, { role: 'owner' }, { key: team.sk_test });
    expectError(a, 400, 'invalid_request_error', 'parameter_invalid', 'role');
    const b = await tp.api.patch(`${members()}/${owner.id}`, { role: 'admin' }, { key: team.sk_test });
    expectError(b, 409, 'conflict_error', 'resource_conflict', 'role');
    await log.settle(tp);
    expect([...log.ofRequest(a.body.error.request_id), ...log.ofRequest(b.body.error.request_id)]).toEqual([]);
    expect(expectOk(await get(`${members()}/${agent.id}`), 200).role).toBe('agent');
    expect(expectOk(await get(`${members()}/${owner.id}`), 200).role).toBe('owner');
  });

  it.each([
    ['a missing role', {}, 400, 'parameter_missing', 'role'],
    ['a wrong type', { role: 5 }, 400, 'parameter_invalid', 'role'],
    ['an unknown role', { role: 'wizard' }, 400, 'parameter_invalid', 'role'],
    ['an unknown field', { role: 'agent', name: 'x' }, 400, 'parameter_invalid', 'name'],
  ])('PATCH refuses %s', async (_n, body, status, code, param) => {
    const agent = await addMember(tp, log, team, 'librarian');
    expectError(await tp.api.patch(`${members()}/${agent.id}`, body, { key: team.sk_test }), status, 'invalid_request_error', code, param);
    expect(expectOk(await get(`${members()}/${agent.id}`), 200).role).toBe('librarian');
  });

  it('changing roles needs manage_members: an agent\'s key is refused, a publishable key too, another team gets 403/404', async () => {
    const agent = await addMember(tp, log, team, 'agent');
    const other = await addMember(tp, log, team, 'spectator');
    expectError(await tp.api.patch(`${members()}/${other.id}`, { role: 'admin' }, { key: agent.key }), 403, 'authorization_error', 'insufficient_permissions');
    expectError(await tp.api.patch(`${members()}/${other.id}`, { role: 'admin' }, { key: team.pk_test }), 403, 'authorization_error', 'publishable_key_write');
    expectError(await tp.api.patch(`${members()}/${other.id}`, { role: 'admin' }, { key: tp.otherTeam.sk_test }), 403, 'authorization_error', 'team_access_denied');
    expectError(await tp.api.patch(`/teams/${tp.otherTeam.teamId}/members/${other.id}`, { role: 'admin' }, { key: tp.otherTeam.sk_test }), 404, 'not_found_error', 'resource_not_found');
    // an admin may (per team: a live key too)
    const admin = await addMember(tp, log, team, 'admin', team.sk_live);
    expect(expectOk(await tp.api.patch(`${members()}/${other.id}`, { role: 'manager' }, { key: admin.key }), 200)).toEqual({ id: other.id, role: 'manager' });
    expect(admin.key).toMatch(/^sk_live_/);
  });
});

describe('removal', () => {
  it('DELETE answers {deleted: true, id}, emits member.removed, and the member\'s keys answer 401 invalid_api_key', async () => {
    const agent = await addMember(tp, log, team, 'agent');
    expect((await get(members(), agent.key)).status).toBe(200);
    const res = await tp.api.delete(`${members()}/${agent.id}`, { key: team.sk_test });
    expect(expectOk(res, 200)).toEqual({ deleted: true, id: agent.id });
    const [e] = await log.waitForRequest(res.body.meta.requestId);
    expect(e).toMatchObject({ type: 'member.removed', data: { memberId: agent.id, member: { role: 'agent' } } });
    expectError(await get(`${members()}/${agent.id}`), 404, 'not_found_error', 'resource_not_found');
    await withinKeyCacheBound('the key is refused', () => get(members(), agent.key), 401);
    expectError(await get(members(), agent.key), 401, 'authentication_error', 'invalid_api_key');
    expectError(await tp.api.delete(`${members()}/${agent.id}`, { key: team.sk_test }), 404, 'not_found_error', 'resource_not_found');
  });

  it('the owner cannot be removed (409); removal needs manage_members', async () => {
    const [owner] = expectOk(await get(members(), team.sk_test, { role: 'owner' }), 200);
    expectError(await tp.api.delete(`${members()}/${owner.id}`, { key: team.sk_test }), 409, 'conflict_error', 'resource_conflict');
    const agent = await addMember(tp, log, team, 'agent');
    expectError(await tp.api.delete(`${members()}/${owner.id}`, { key: agent.key }), 403, 'authorization_error', 'insufficient_permissions');
    expectError(await tp.api.delete(`${members()}/${owner.id}`, { key: team.pk_live }), 403, 'authorization_error', 'publishable_key_write');
    expect(expectOk(await get(members(), team.sk_test, { role: 'owner' }), 200)).toHaveLength(1);
  });
});
