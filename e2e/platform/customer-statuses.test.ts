import { startTestPlatform, type TestPlatform } from '../support/platform';
import { expectError, expectOk } from './helpdesk-helpers';
import { CustomerEvents } from './customers-helpers';

let tp: TestPlatform;
let log: CustomerEvents;
let team: { path: string; sk: string; pk: string; live: string };
const statuses = () => `${team.path}/customer-statuses`;
const BUILT_INS = ['active', 'inactive', 'churned', 'pending'];

beforeAll(async () => {
  tp = await startTestPlatform();
  log = await CustomerEvents.start(tp);
  // A team of its own: settle()'s markers live in the first team, so this list holds only what the tests add.
  const keys = await tp.createTeam();
  team = { path: `/teams/${keys.teamId}`, sk: keys.sk_test, pk: keys.pk_test, live: keys.sk_live };
}, 60_000);
afterAll(async () => {
  await tp?.stop();
}, 60_000);

const api = {
  get: (path: string, key = team.sk) => tp.api.get(path, { key }),
  post: (path: string, body: unknown, key = team.sk) => tp.api.post(path, body, { key }),
  patch: (path: string, body: unknown, key = team.sk) => tp.api.patch(path, body, { key }),
  delete: (path: string, key = team.sk) => tp.api.delete(path, { key }),
};
const keys = async () => expectOk(await api.get(statuses()), 200).map((s: any) => s.key);

describe('customer statuses through the gateway', () => {
  it('lists the four protected built-ins first', async () => {
    const list = expectOk(await api.get(statuses()), 200);
    expect(list.map((s: any) => [s.key, s.position, s.isProtected])).toEqual(BUILT_INS.map((k, i) => [k, i, true]));
    for (const s of list) expect(s.color).toMatch(/^#[0-9a-f]{6}$/);
  });

  it('creates a status (defaults), lists it after the built-ins, and it becomes a valid customer status and filter', async () => {
    const res = await api.post(statuses(), { key: 'vip', label: 'VIP' });
    expect(expectOk(res, 201)).toEqual({ key: 'vip', label: 'VIP', color: '#6b7280', position: 4, isProtected: false });
    const [e] = await log.waitForRequest(res.body.meta.requestId, 1);
    expect(e).toMatchObject({ type: 'customer_status.created', data: { status: { key: 'vip' } } });
    expect(await keys()).toEqual([...BUILT_INS, 'vip']);
    const c = expectOk(await api.post(`${team.path}/customers`, { name: 'V', email: 'v@example.com' }), 201);
    expect(expectOk(await api.patch(`${team.path}/customers/${c.id}`, { status: 'vip' }), 200).status).toBe('vip');
    expect(expectOk(await tp.api.get(`${team.path}/customers`, { key: team.sk, query: { status: 'vip' } }), 200).map((x: any) => x.id)).toEqual([c.id]);
    // the live partition has its own statuses
    expect(expectOk(await api.get(statuses(), team.live), 200).map((s: any) => s.key)).toEqual(BUILT_INS);
  });

  it.each([
    ['missing key', { label: 'x' }, 400, 'invalid_request_error', 'parameter_missing', 'key'],
    ['missing label', { key: 'x' }, 400, 'invalid_request_error', 'parameter_missing', 'label'],
    ['label wrong type', { key: 'x', label: 5 }, 400, 'invalid_request_error', 'parameter_invalid', 'label'],
    ['key not a slug', { key: 'Has Space', label: 'x' }, 400, 'invalid_request_error', 'parameter_invalid', 'key'],
    ['color not #rrggbb', { key: 'x', label: 'x', color: 'blue' }, 400, 'invalid_request_error', 'parameter_invalid', 'color'],
    ['position among the built-ins', { key: 'x', label: 'x', position: 0 }, 400, 'invalid_request_error', 'parameter_invalid', 'position'],
    ['an unknown field', { key: 'x', label: 'x', isProtected: true }, 400, 'invalid_request_error', 'parameter_invalid', 'isProtected'],
    ['a built-in key', { key: 'churned', label: 'x' }, 409, 'conflict_error', 'resource_conflict', 'key'],
  ])('refuses %s; nothing added, nothing emitted', async (_name, body, status, type, code, param) => {
    const res = await api.post(statuses(), body);
    expectError(res, status, type, code, param);
    await log.settle();
    expect(log.ofRequest(res.body.error.request_id)).toEqual([]);
    expect(await keys()).not.toContain('x');
  });

  it('a taken key is 409 param key', async () => {
    expectOk(await api.post(statuses(), { key: 'dup', label: 'Dup' }), 201);
    expectError(await api.post(statuses(), { key: 'dup', label: 'Again' }), 409, 'conflict_error', 'resource_conflict', 'key');
  });

  it('PATCH changes label, color, position and emits customer_status.updated; built-ins are 409', async () => {
    expectOk(await api.post(statuses(), { key: 'gold', label: 'Gold' }), 201);
    const res = await api.patch(`${statuses()}/gold`, { label: 'Gold tier', color: '#FFD700', position: 42 });
    expect(expectOk(res, 200)).toEqual({ key: 'gold', label: 'Gold tier', color: '#ffd700', position: 42, isProtected: false });
    const [e] = await log.waitForRequest(res.body.meta.requestId, 1);
    expect(e.data).toMatchObject({ changes: ['label', 'color', 'position'], previous: { label: 'Gold', color: '#6b7280' } });
    expect((await keys()).slice(-1)).toEqual(['gold']);
    expectError(await api.patch(`${statuses()}/active`, { label: 'Live' }), 409, 'conflict_error', 'resource_conflict');
    expectError(await api.patch(`${statuses()}/gold`, { key: 'platinum' }), 400, 'invalid_request_error', 'parameter_invalid', 'key');
    expectError(await api.patch(`${statuses()}/missing`, { label: 'x' }), 404, 'not_found_error', 'resource_not_found');
    expectError(await api.patch(`${statuses()}/Not%20A%20Key`, { label: 'x' }), 400, 'invalid_request_error', 'invalid_id_format', 'statusKey');
  });

  it('DELETE: 409 while customers have it, 200 once none does; built-ins are 409', async () => {
    expectOk(await api.post(statuses(), { key: 'doomed', label: 'Doomed' }), 201);
    const c = expectOk(await api.post(`${team.path}/customers`, { name: 'D', email: 'd@example.com' }), 201);
    expectOk(await api.patch(`${team.path}/customers/${c.id}`, { status: 'doomed' }), 200);
    const refused = await api.delete(`${statuses()}/doomed`);
    expectError(refused, 409, 'conflict_error', 'resource_conflict');
    expect(refused.body.error.message).toContain('1 customer');
    expectOk(await api.patch(`${team.path}/customers/${c.id}`, { status: 'active' }), 200);
    const res = await api.delete(`${statuses()}/doomed`);
    expect(expectOk(res, 200)).toEqual({ key: 'doomed', deleted: true });
    const [e] = await log.waitForRequest(res.body.meta.requestId, 1);
    expect(e).toMatchObject({ type: 'customer_status.deleted', data: { key: 'doomed' } });
    expect(await keys()).not.toContain('doomed');
    expectError(await api.patch(`${team.path}/customers/${c.id}`, { status: 'doomed' }), 400, 'invalid_request_error', 'parameter_invalid', 'status');
    for (const k of BUILT_INS) expectError(await api.delete(`${statuses()}/${k}`), 409, 'conflict_error', 'resource_conflict');
  });

  it('keys and permissions: publishable refused, another team refused, the live partition does not see test statuses', async () => {
    expectOk(await api.post(statuses(), { key: 'scoped', label: 'Scoped' }), 201);
    expectError(await api.get(statuses(), team.pk), 403, 'authorization_error', 'publishable_key_forbidden');
    expectError(await api.post(statuses(), { key: 'p', label: 'p' }, team.pk), 403, 'authorization_error', 'publishable_key_write');
    expectError(await api.patch(`${statuses()}/scoped`, { label: 'p' }, team.pk), 403, 'authorization_error', 'publishable_key_write');
    expectError(await api.delete(`${statuses()}/scoped`, team.pk), 403, 'authorization_error', 'publishable_key_write');
    expectError(await api.get(statuses(), tp.team.sk_test), 403, 'authorization_error', 'team_access_denied');
    expectError(await api.delete(`${statuses()}/scoped`, tp.team.sk_test), 403, 'authorization_error', 'team_access_denied');
    expectError(await api.patch(`${statuses()}/scoped`, { label: 'x' }, team.live), 404, 'not_found_error', 'resource_not_found');
    expectError(await api.delete(`${statuses()}/scoped`, team.live), 404, 'not_found_error', 'resource_not_found');
    expect(await keys()).toContain('scoped');
  });
});
