import { type ApiResponse } from '@helpdesk/testing';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { ISO, REQ_ID, expectError } from './helpdesk-helpers';
import { CustomerEvents, GROUP_KEYS, UUID } from './customers-helpers';

let tp: TestPlatform;
let log: CustomerEvents;
const path = () => `${tp.teamPath}/customer-groups`;
let n = 0;

beforeAll(async () => {
  tp = await startTestPlatform();
  log = await CustomerEvents.start(tp);
}, 60_000);
afterAll(async () => {
  await tp?.stop();
}, 60_000);

/** Customer-group answers are bare (no envelope, as the spec shows); the request id is in the header. */
function expectBare(res: ApiResponse, status: number): any {
  if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${res.text}`);
  expect(res.headers.get('x-svc-request-id')).toMatch(REQ_ID);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(res.body).not.toHaveProperty('success');
  return res.body;
}
const requestIdOf = (res: ApiResponse) => res.headers.get('x-svc-request-id')!;
const create = async (body: Record<string, unknown> = {}) => expectBare(await tp.api.post(path(), { name: `Group ${++n}`, ...body }), 201);
const total = async (): Promise<number> => (await tp.api.get(path(), { query: { pageSize: 1 } })).body.pagination.total;

async function expectRefusedWithoutEffect(send: () => Promise<ApiResponse>, status: number, type: string, code: string, param?: string) {
  await log.settle();
  const before = await total();
  const res = await send();
  expectError(res, status, type, code, param);
  await log.settle();
  expect(log.ofRequest(res.body.error.request_id)).toEqual([]);
  expect(await total()).toBe(before);
}

describe('POST /customer-groups through the gateway', () => {
  it('creates a group with a generated slug, answers the bare group, stores it and emits customer_group.created', async () => {
    const res = await tp.api.post(path(), { name: 'Enterprise Accounts', description: 'Big ones', externalId: 'crm-1', customFields: { tier: 'gold', seats: 500 } });
    const g = expectBare(res, 201);
    expect(Object.keys(g).sort()).toEqual(GROUP_KEYS);
    expect(g).toMatchObject({ object: 'customer_group', name: 'Enterprise Accounts', slug: 'enterprise-accounts', description: 'Big ones', externalId: 'crm-1', customFields: { tier: 'gold', seats: 500 }, customerCount: 0 });
    expect(g.id).toMatch(UUID);
    expect(g.createdAt).toMatch(ISO);
    expect(expectBare(await tp.api.get(`${path()}/${g.id}`), 200)).toEqual(g);
    const [e] = await log.waitForRequest(requestIdOf(res), 1);
    const { object: _o, ...snapshot } = g;
    expect(e).toMatchObject({ type: 'customer_group.created', teamId: tp.team.teamId, mode: 'test', data: { group: snapshot } });
  });

  it('a slug taken, given or generated, is 409 param slug; externalId taken is 409 param externalId', async () => {
    await create({ name: 'Resellers' });
    await expectRefusedWithoutEffect(() => tp.api.post(path(), { name: 'resellers' }), 409, 'conflict_error', 'resource_conflict', 'slug');
    await expectRefusedWithoutEffect(() => tp.api.post(path(), { name: 'Other', slug: 'resellers' }), 409, 'conflict_error', 'resource_conflict', 'slug');
    await create({ externalId: 'ext-dup' });
    await expectRefusedWithoutEffect(() => tp.api.post(path(), { name: 'Another', externalId: 'ext-dup' }), 409, 'conflict_error', 'resource_conflict', 'externalId');
    // the live partition has its own slugs
    expectBare(await tp.api.post(path(), { name: 'Resellers' }, { key: tp.team.sk_live }), 201);
  });

  const bad: [string, unknown, string, string][] = [
    ['missing name', { slug: 'x' }, 'parameter_missing', 'name'],
    ['name wrong type', { name: 42 }, 'parameter_invalid', 'name'],
    ['slug not a slug', { name: 'A', slug: 'Has Spaces' }, 'parameter_invalid', 'slug'],
    ['customFields not an object', { name: 'A', customFields: 'x' }, 'parameter_invalid', 'customFields'],
    ['customerCount is read-only', { name: 'A', customerCount: 5 }, 'parameter_invalid', 'customerCount'],
    ['unknown field', { name: 'A', color: 'blue' }, 'parameter_invalid', 'color'],
  ];
  it.each(bad)('refuses %s with 400, writes nothing, emits nothing', async (_name, body, code, param) => {
    await expectRefusedWithoutEffect(() => tp.api.post(path(), body), 400, 'invalid_request_error', code, param);
  });

  it('keys: publishable 403 publishable_key_write; another team 403 team_access_denied; nothing written', async () => {
    await expectRefusedWithoutEffect(() => tp.api.post(path(), { name: 'P' }, { key: tp.team.pk_test }), 403, 'authorization_error', 'publishable_key_write');
    await expectRefusedWithoutEffect(() => tp.api.post(path(), { name: 'O' }, { key: tp.otherTeam.sk_test }), 403, 'authorization_error', 'team_access_denied');
  });
});

describe('GET /customer-groups through the gateway', () => {
  it('lists with top-level pagination (default 25) and searches by name', async () => {
    const keys = await tp.createTeam();
    const teamPath = `/teams/${keys.teamId}/customer-groups`;
    for (let i = 0; i < 26; i++) expectBare(await tp.api.post(teamPath, { name: i === 3 ? 'Gold (VIP) [tier]' : `Plain ${i}` }, { key: keys.sk_test }), 201);
    const res = await tp.api.get(teamPath, { key: keys.sk_test });
    expect(Object.keys(expectBare(res, 200)).sort()).toEqual(['data', 'pagination']);
    expect(res.body.data).toHaveLength(25);
    expect(res.body.data[0].name).toBe('Plain 25');
    expect(res.body.pagination).toEqual({ page: 1, pageSize: 25, total: 26, totalPages: 2, hasMore: true });
    const p2 = await tp.api.get(teamPath, { key: keys.sk_test, query: { page: 2 } });
    expect(p2.body.data.map((g: any) => g.name)).toEqual(['Plain 0']);
    const found = await tp.api.get(teamPath, { key: keys.sk_test, query: { search: 'gold (vip) [TIER]' } });
    expect(found.body.data.map((g: any) => g.name)).toEqual(['Gold (VIP) [tier]']);
    expect(found.body.pagination.total).toBe(1);
    expectError(await tp.api.get(teamPath, { key: keys.sk_test, query: { pageSize: 101 } }), 400, 'invalid_request_error', 'parameter_invalid', 'pageSize');
    expectError(await tp.api.get(teamPath, { key: keys.sk_test, query: { sort: 'name' } }), 400, 'invalid_request_error', 'parameter_invalid', 'sort');
  });

  it('reads: publishable 403 publishable_key_forbidden, other team 403, other partition and wrong ids 404', async () => {
    const g = await create();
    const one = `${path()}/${g.id}`;
    expectError(await tp.api.get(path(), { key: tp.team.pk_test }), 403, 'authorization_error', 'publishable_key_forbidden');
    expectError(await tp.api.get(one, { key: tp.team.pk_test }), 403, 'authorization_error', 'publishable_key_forbidden');
    expectError(await tp.api.get(one, { key: tp.otherTeam.sk_test }), 403, 'authorization_error', 'team_access_denied');
    expectError(await tp.api.get(one, { key: tp.team.sk_live }), 404, 'not_found_error', 'resource_not_found');
    expectError(await tp.api.get(`/teams/${tp.otherTeam.teamId}/customer-groups/${g.id}`, { key: tp.otherTeam.sk_test }), 404, 'not_found_error', 'resource_not_found');
    expectError(await tp.api.get(`${path()}/cus_abcdefgh12345678`), 404, 'not_found_error', 'resource_not_found');
    expectError(await tp.api.get(`${path()}/nope`), 400, 'invalid_request_error', 'invalid_id_format', 'groupId');
  });
});

describe('PATCH /customer-groups/{id} through the gateway', () => {
  it('changes name, slug, description and merges customFields; emits customer_group.updated', async () => {
    const g = await create({ name: 'Before', customFields: { keep: 1, drop: 2 } });
    const res = await tp.api.patch(`${path()}/${g.id}`, { name: 'After', slug: `after-${n}`, description: 'now described', customFields: { drop: null, add: true } });
    const u = expectBare(res, 200);
    expect(u).toMatchObject({ id: g.id, name: 'After', slug: `after-${n}`, description: 'now described', customFields: { keep: 1, add: true }, createdAt: g.createdAt });
    expect(expectBare(await tp.api.get(`${path()}/${g.id}`), 200)).toEqual(u);
    const [e] = await log.waitForRequest(requestIdOf(res), 1);
    expect(e.type).toBe('customer_group.updated');
    expect([...e.data.changes].sort()).toEqual(['customFields', 'description', 'name', 'slug']);
    expect(e.data.previous).toEqual({ name: 'Before', slug: g.slug, description: null, customFields: { keep: 1, drop: 2 } });
  });

  it.each([
    ['externalId (not patchable)', { externalId: 'x' }, 'parameter_invalid', 'externalId'],
    ['name null', { name: null }, 'parameter_invalid', 'name'],
    ['slug not a slug', { slug: 'UPPER' }, 'parameter_invalid', 'slug'],
  ])('refuses %s; the group is unchanged', async (_name, body, code, param) => {
    const g = await create();
    const res = await tp.api.patch(`${path()}/${g.id}`, body);
    expectError(res, 400, 'invalid_request_error', code, param);
    await log.settle();
    expect(log.ofRequest(res.body.error.request_id)).toEqual([]);
    expect(expectBare(await tp.api.get(`${path()}/${g.id}`), 200)).toEqual(g);
  });

  it('a taken slug is 409; publishable, other team and other partition are refused; the group is unchanged', async () => {
    const a = await create();
    const g = await create();
    const one = `${path()}/${g.id}`;
    expectError(await tp.api.patch(one, { slug: a.slug }), 409, 'conflict_error', 'resource_conflict', 'slug');
    expectError(await tp.api.patch(one, { name: 'x' }, { key: tp.team.pk_test }), 403, 'authorization_error', 'publishable_key_write');
    expectError(await tp.api.patch(one, { name: 'x' }, { key: tp.otherTeam.sk_test }), 403, 'authorization_error', 'team_access_denied');
    expectError(await tp.api.patch(one, { name: 'x' }, { key: tp.team.sk_live }), 404, 'not_found_error', 'resource_not_found');
    expect(expectBare(await tp.api.get(one), 200)).toEqual(g);
  });
});

describe('DELETE /customer-groups/{id} through the gateway', () => {
  it('answers {deleted, id}, detaches members (customers kept) and emits customer_group.deleted', async () => {
    const g = await create();
    const c = (await tp.api.post(`${tp.teamPath}/customers`, { name: 'Kept', email: `kept${++n}.${Date.now()}@example.com` })).body.data;
    expect((await tp.api.post(`${path()}/${g.id}/members`, { customerId: c.id })).body).toEqual({ added: 1, total: 1, skipped: 0 });
    const res = await tp.api.delete(`${path()}/${g.id}`);
    expect(expectBare(res, 200)).toEqual({ deleted: true, id: g.id });
    expectError(await tp.api.get(`${path()}/${g.id}`), 404, 'not_found_error', 'resource_not_found');
    expect((await tp.api.get(`${tp.teamPath}/customers/${c.id}`)).status).toBe(200);
    const [e] = await log.waitForRequest(requestIdOf(res), 1);
    expect(e).toMatchObject({ type: 'customer_group.deleted', data: { groupId: g.id, membersDetached: 1 } });
    expectError(await tp.api.delete(`${path()}/${g.id}`), 404, 'not_found_error', 'resource_not_found');
  });

  it('publishable, other team and other partition are refused; the group stays', async () => {
    const g = await create();
    const one = `${path()}/${g.id}`;
    expectError(await tp.api.delete(one, { key: tp.team.pk_test }), 403, 'authorization_error', 'publishable_key_write');
    expectError(await tp.api.delete(one, { key: tp.otherTeam.sk_test }), 403, 'authorization_error', 'team_access_denied');
    expectError(await tp.api.delete(one, { key: tp.team.sk_live }), 404, 'not_found_error', 'resource_not_found');
    expectBare(await tp.api.get(one), 200);
    await log.settle();
    expect(log.about(g.id).map((e) => e.type)).toEqual(['customer_group.created']);
  });
});
