import { type ApiResponse } from '@helpdesk/testing';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { ISO, expectError, expectOk } from './helpdesk-helpers';
import { CustomerEvents } from './customers-helpers';

let tp: TestPlatform;
let log: CustomerEvents;
const groups = () => `${tp.teamPath}/customer-groups`;
const members = (groupId: string) => `${groups()}/${groupId}/members`;
let n = 0;

beforeAll(async () => {
  tp = await startTestPlatform();
  log = await CustomerEvents.start(tp);
}, 60_000);
afterAll(async () => {
  await tp?.stop();
}, 60_000);

const group = async () => {
  const res = await tp.api.post(groups(), { name: `Members ${++n}` });
  expect(res.status).toBe(201);
  return res.body;
};
const customer = async (key?: string) => expectOk(await tp.api.post(`${tp.teamPath}/customers`, { name: `Member ${++n}`, email: `gm${n}.${Date.now()}@example.com` }, key ? { key } : {}), 201);
const countOf = async (groupId: string) => (await tp.api.get(`${groups()}/${groupId}`)).body.customerCount;
const rid = (res: ApiResponse) => res.headers.get('x-svc-request-id')!;

async function expectRefusedWithoutEffect(groupId: string, send: () => Promise<ApiResponse>, status: number, type: string, code: string, param?: string) {
  await log.settle();
  const before = await countOf(groupId);
  const res = await send();
  expectError(res, status, type, code, param);
  await log.settle();
  expect(log.ofRequest(res.body.error.request_id)).toEqual([]);
  expect(await countOf(groupId)).toBe(before);
}

describe('POST /customer-groups/{id}/members through the gateway', () => {
  it('adds one or many, skips duplicates, answers {added, total, skipped}, keeps customerCount and emits member_added each', async () => {
    const g = await group();
    const [a, b, c] = [await customer(), await customer(), await customer()];
    const one = await tp.api.post(members(g.id), { customerId: a.id });
    expect(one.status).toBe(200);
    expect(one.body).toEqual({ added: 1, total: 1, skipped: 0 });
    const many = await tp.api.post(members(g.id), { customerIds: [a.id, b.id, c.id, c.id] });
    expect(many.body).toEqual({ added: 2, total: 4, skipped: 2 });
    expect(await countOf(g.id)).toBe(3);

    const events = await log.waitForRequest(rid(many), 2);
    expect(events.map((e) => [e.type, e.data.member.id, e.data.group.customerCount])).toEqual([
      ['customer_group.member_added', b.id, 2],
      ['customer_group.member_added', c.id, 3],
    ]);
    expect(events[0].data.member).toEqual({ id: b.id, name: b.name, email: b.email, joinedGroupAt: expect.stringMatching(ISO) });

    const all = await tp.api.post(members(g.id), { customerIds: [a.id, b.id] });
    expect(all.body).toEqual({ added: 0, total: 2, skipped: 2 });
    await log.settle();
    expect(log.ofRequest(rid(all))).toEqual([]);
  });

  it('an unknown customer, or one of another team or partition, is 404 and nothing is added', async () => {
    const g = await group();
    const a = await customer();
    const live = await customer(tp.team.sk_live);
    for (const missing of ['cus_doesnotexist000000000000', live.id]) {
      await expectRefusedWithoutEffect(g.id, () => tp.api.post(members(g.id), { customerIds: [a.id, missing] }), 404, 'not_found_error', 'resource_not_found');
    }
    expect((await tp.api.get(members(g.id))).body.data).toEqual([]);
  });

  const bad: [string, unknown, string, string][] = [
    ['neither customerId nor customerIds', {}, 'parameter_missing', 'customerIds'],
    ['both', { customerId: 'cus_a1234567', customerIds: ['cus_b1234567'] }, 'parameter_invalid', 'customerIds'],
    ['customerIds not an array', { customerIds: 'cus_a1234567' }, 'parameter_invalid', 'customerIds'],
    ['101 customerIds', { customerIds: Array.from({ length: 101 }, (_, i) => `cus_${String(i).padStart(8, '0')}`) }, 'parameter_invalid', 'customerIds'],
    ['customerId wrong type', { customerId: 7 }, 'parameter_invalid', 'customerId'],
    ['unknown field', { customerId: 'cus_a1234567', note: 'x' }, 'parameter_invalid', 'note'],
  ];
  it.each(bad)('refuses %s with 400; nothing added', async (_name, body, code, param) => {
    const g = await group();
    await expectRefusedWithoutEffect(g.id, () => tp.api.post(members(g.id), body), 400, 'invalid_request_error', code, param);
  });

  it('keys and scope: publishable 403, other team 403, other partition 404; nothing added', async () => {
    const g = await group();
    const a = await customer();
    await expectRefusedWithoutEffect(g.id, () => tp.api.post(members(g.id), { customerId: a.id }, { key: tp.team.pk_test }), 403, 'authorization_error', 'publishable_key_write');
    await expectRefusedWithoutEffect(g.id, () => tp.api.post(members(g.id), { customerId: a.id }, { key: tp.otherTeam.sk_test }), 403, 'authorization_error', 'team_access_denied');
    await expectRefusedWithoutEffect(g.id, () => tp.api.post(members(g.id), { customerId: a.id }, { key: tp.team.sk_live }), 404, 'not_found_error', 'resource_not_found');
  });

  it('concurrent adds keep customerCount exact', async () => {
    const g = await group();
    const ids: string[] = [];
    for (let i = 0; i < 8; i++) ids.push((await customer()).id);
    const replies = await Promise.all([
      tp.api.post(members(g.id), { customerIds: ids.slice(0, 5) }),
      tp.api.post(members(g.id), { customerIds: ids.slice(3) }),
      tp.api.post(members(g.id), { customerIds: ids }),
      ...ids.map((id) => tp.api.post(members(g.id), { customerId: id })),
    ]);
    for (const r of replies) expect(r.status).toBe(200);
    expect(replies.reduce((sum, r) => sum + r.body.added, 0)).toBe(8);
    expect(await countOf(g.id)).toBe(8);
    expect((await tp.api.get(members(g.id))).body.pagination.total).toBe(8);
  });
});

describe('GET /customer-groups/{id}/members through the gateway', () => {
  it('lists members newest first with top-level pagination (default 25), with the customers\' current names', async () => {
    const g = await group();
    const ids: string[] = [];
    for (let i = 0; i < 27; i++) ids.push((await customer()).id);
    await tp.api.post(members(g.id), { customerIds: ids.slice(0, 26) });
    await tp.api.post(members(g.id), { customerId: ids[26] });
    expectOk(await tp.api.patch(`${tp.teamPath}/customers/${ids[26]}`, { name: 'Newest Member' }), 200);
    const res = await tp.api.get(members(g.id));
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['data', 'pagination']);
    expect(res.headers.get('x-svc-request-id')).toMatch(/^req_/);
    expect(res.body.data).toHaveLength(25);
    expect(res.body.pagination).toEqual({ page: 1, pageSize: 25, total: 27, totalPages: 2, hasMore: true });
    expect(res.body.data[0]).toEqual({ id: ids[26], object: 'customer', name: 'Newest Member', email: expect.any(String), joinedGroupAt: expect.stringMatching(ISO) });
    const p2 = await tp.api.get(members(g.id), { query: { page: 2, pageSize: 25 } });
    expect(p2.body.data).toHaveLength(2);
    expect(p2.body.pagination.hasMore).toBe(false);
    expectError(await tp.api.get(members(g.id), { query: { pageSize: 0 } }), 400, 'invalid_request_error', 'parameter_invalid', 'pageSize');
    expectError(await tp.api.get(members(g.id), { query: { customerId: ids[0] } }), 400, 'invalid_request_error', 'parameter_invalid', 'customerId');
  });

  it('reads: publishable 403, other team 403, other partition 404, unknown group 404', async () => {
    const g = await group();
    expectError(await tp.api.get(members(g.id), { key: tp.team.pk_test }), 403, 'authorization_error', 'publishable_key_forbidden');
    expectError(await tp.api.get(members(g.id), { key: tp.otherTeam.sk_test }), 403, 'authorization_error', 'team_access_denied');
    expectError(await tp.api.get(members(g.id), { key: tp.team.sk_live }), 404, 'not_found_error', 'resource_not_found');
    expectError(await tp.api.get(members('4f1c1f0e-0000-4000-8000-000000000009')), 404, 'not_found_error', 'resource_not_found');
  });
});

describe('DELETE /customer-groups/{id}/members through the gateway', () => {
  it('removes a member: {removed, customerId, groupId}, customerCount down, member_removed; the customer stays', async () => {
    const g = await group();
    const [a, b] = [await customer(), await customer()];
    await tp.api.post(members(g.id), { customerIds: [a.id, b.id] });
    const res = await tp.api.delete(members(g.id), { query: { customerId: a.id } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ removed: true, customerId: a.id, groupId: g.id });
    expect(await countOf(g.id)).toBe(1);
    expect((await tp.api.get(members(g.id))).body.data.map((m: any) => m.id)).toEqual([b.id]);
    expectOk(await tp.api.get(`${tp.teamPath}/customers/${a.id}`), 200);
    const [e] = await log.waitForRequest(rid(res), 1);
    expect(e).toMatchObject({ type: 'customer_group.member_removed', data: { reason: 'removed', member: { id: a.id }, group: { id: g.id, customerCount: 1 } } });
  });

  it('customerId is required; a non-member is 404; keys and scope are refused; nothing removed', async () => {
    const g = await group();
    const a = await customer();
    const other = await customer();
    await tp.api.post(members(g.id), { customerId: a.id });
    await expectRefusedWithoutEffect(g.id, () => tp.api.delete(members(g.id)), 400, 'invalid_request_error', 'parameter_missing', 'customerId');
    await expectRefusedWithoutEffect(g.id, () => tp.api.delete(members(g.id), { query: { customerId: other.id } }), 404, 'not_found_error', 'resource_not_found');
    const q = { query: { customerId: a.id } };
    await expectRefusedWithoutEffect(g.id, () => tp.api.delete(members(g.id), { ...q, key: tp.team.pk_test }), 403, 'authorization_error', 'publishable_key_write');
    await expectRefusedWithoutEffect(g.id, () => tp.api.delete(members(g.id), { ...q, key: tp.otherTeam.sk_test }), 403, 'authorization_error', 'team_access_denied');
    await expectRefusedWithoutEffect(g.id, () => tp.api.delete(members(g.id), { ...q, key: tp.team.sk_live }), 404, 'not_found_error', 'resource_not_found');
    expect(await countOf(g.id)).toBe(1);
  });
});
