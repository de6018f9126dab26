/** Customer groups and their members over HTTP on the embedded MongoDB and the memory bus. */
import { customerGroupSnapshotSchema } from '@helpdesk/contracts';
import { slugOf } from '../src/customer-groups/rules';
import { expectError, startHarness, TEAM_B, type Caller, type Harness } from './helpers';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
}, 30_000);
afterAll(async () => {
  await h?.stop();
});

const G = '/teams/{team}/customer-groups';
let n = 0;
const group = async (body: Record<string, unknown> = {}, as?: Caller) => {
  const r = await h.api('POST', G, { body: { name: `Group ${++n}`, ...body }, as });
  if (r.status !== 201) throw new Error(`group: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
};
const customer = async (as?: Caller) => {
  const r = await h.api('POST', '/teams/{team}/customers', { body: { name: `Customer ${++n}`, email: `m${n}@example.com` }, as });
  if (r.status !== 201) throw new Error(`customer: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.data;
};
const GROUP_KEYS = ['createdAt', 'customFields', 'customerCount', 'description', 'externalId', 'id', 'name', 'object', 'slug', 'updatedAt'];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const count = (coll: string, filter: Record<string, unknown> = {}) => h.svc.conn.collection(coll).countDocuments(filter);

describe('POST /customer-groups', () => {
  test('creates a group (bare object, no envelope) with a slug from its name and emits customer_group.created', async () => {
    const r = await h.api('POST', G, { body: { name: 'Enterprise Customers!' } });
    expect(r.status).toBe(201);
    expect(r.headers.get('x-svc-request-id')).toBe(r.requestId);
    const g = r.body;
    expect(Object.keys(g).sort()).toEqual(GROUP_KEYS);
    expect(g).toMatchObject({
      object: 'customer_group', name: 'Enterprise Customers!', slug: 'enterprise-customers', description: null, externalId: null, customFields: {}, customerCount: 0,
    });
    expect(g.id).toMatch(UUID);
    expect(g.createdAt).toBe(g.updatedAt);
    expect((await h.api('GET', `${G}/${g.id}`)).body).toEqual(g);
    const events = await h.eventsOf(r.requestId);
    expect(events.map((e) => e.type)).toEqual(['customer_group.created']);
    const { object: _o, ...snap } = g;
    expect(customerGroupSnapshotSchema.parse(events[0].data.group)).toEqual(snap);
  });

  test('keeps slug, description, externalId and customFields as given', async () => {
    const g = await group({ name: 'Partners', slug: 'our-partners', description: 'resellers', externalId: 'crm-42', customFields: { tier: 2, region: 'EU', gone: null } });
    expect(g).toMatchObject({ slug: 'our-partners', description: 'resellers', externalId: 'crm-42', customFields: { tier: 2, region: 'EU' } });
  });

  test('a slug, given or generated, must be free: 409 param slug; another team or partition may use it', async () => {
    await group({ name: 'Resellers' });
    const generated = await h.api('POST', G, { body: { name: 'RESELLERS' } });
    expectError(generated, 409, 'resource_conflict', 'slug');
    expect(await h.eventsOf(generated.requestId)).toEqual([]);
    expectError(await h.api('POST', G, { body: { name: 'Other', slug: 'resellers' } }), 409, 'resource_conflict', 'slug');
    expect((await h.api('POST', G, { body: { name: 'Resellers' }, as: { mode: 'live' } })).status).toBe(201);
    expect((await h.api('POST', G, { body: { name: 'Resellers' }, as: { teamId: TEAM_B } })).status).toBe(201);
  });

  test('externalId is unique when set (409 param externalId); null may repeat', async () => {
    await group({ externalId: 'ext-1' });
    expectError(await h.api('POST', G, { body: { name: 'X', externalId: 'ext-1' } }), 409, 'resource_conflict', 'externalId');
    await group({ externalId: null });
    await group({ externalId: null });
  });

  test('a name slugify cannot spell gets a random group- slug', async () => {
    expect(slugOf('日本語')).toMatch(/^group-[a-z0-9]{8}$/);
    expect(slugOf('Ünïcode & Co.')).toBe('unicode-and-co');
    expect(slugOf(`${'a'.repeat(99)} b`)).toBe('a'.repeat(99));
    const g = await group({ name: '🎉🎉' });
    expect(g.slug).toMatch(/^group-[a-z0-9]{8}$/);
  });

  const bad: [string, unknown, string, string][] = [
    ['missing name', { slug: 'x' }, 'parameter_missing', 'name'],
    ['name wrong type', { name: 1 }, 'parameter_invalid', 'name'],
    ['blank name', { name: ' ' }, 'parameter_invalid', 'name'],
    ['bad slug', { name: 'A', slug: 'Not A Slug' }, 'parameter_invalid', 'slug'],
    ['slug with a trailing dash', { name: 'A', slug: 'a-' }, 'parameter_invalid', 'slug'],
    ['slug of 101', { name: 'A', slug: 'a'.repeat(101) }, 'parameter_invalid', 'slug'],
    ['description wrong type', { name: 'A', description: 5 }, 'parameter_invalid', 'description'],
    ['customFields wrong type', { name: 'A', customFields: [] }, 'parameter_invalid', 'customFields'],
    ['customFields of 51 keys', { name: 'A', customFields: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i])) }, 'parameter_invalid', 'customFields'],
    ['unknown field', { name: 'A', colour: 'red' }, 'parameter_invalid', 'colour'],
    ['customerCount is read-only', { name: 'A', customerCount: 3 }, 'parameter_invalid', 'customerCount'],
  ];
  test.each(bad)('refuses %s; nothing written', async (_name, body, code, param) => {
    const before = await count('customer_groups');
    const r = await h.api('POST', G, { body });
    expectError(r, 400, code, param);
    expect(await count('customer_groups')).toBe(before);
    expect(await h.eventsOf(r.requestId)).toEqual([]);
  });
});

describe('GET /customer-groups', () => {
  const as: Caller = { teamId: '8b1c1f0e-0000-4000-8000-000000000001' };
  beforeAll(async () => {
    for (const name of ['Alpha Club', 'Beta (test) [x]', 'Gamma club', ...Array.from({ length: 25 }, (_, i) => `Filler ${i}`)]) await group({ name }, as);
  });
  const list = (qs = '') => h.api('GET', `${G}${qs ? `?${qs}` : ''}`, { as });

  test('newest first, default page size 25, top-level pagination', async () => {
    const r = await list();
    expect(r.status).toBe(200);
    expect(r.body.data).toHaveLength(25);
    expect(r.body.data[0].name).toBe('Filler 24');
    expect(r.body.pagination).toEqual({ page: 1, pageSize: 25, total: 28, totalPages: 2, hasMore: true });
    for (const g of r.body.data) expect(Object.keys(g).sort()).toEqual(GROUP_KEYS);
    const p2 = await list('page=2');
    expect(p2.body.data.map((g: any) => g.name)).toEqual(['Gamma club', 'Beta (test) [x]', 'Alpha Club']);
    expect(p2.body.pagination.hasMore).toBe(false);
  });

  test('search over the name, case-insensitive, regex characters literal', async () => {
    expect((await list('search=CLUB')).body.data.map((g: any) => g.name)).toEqual(['Gamma club', 'Alpha Club']);
    expect((await list('search=(test)%20%5Bx%5D')).body.data.map((g: any) => g.name)).toEqual(['Beta (test) [x]']);
    expect((await list('search=.*')).body.data).toEqual([]);
  });

  test.each([['pageSize=101', 'pageSize'], ['page=0', 'page'], ['name=x', 'name']])('?%s is 400 naming %s', async (qs, param) => {
    expectError(await list(qs), 400, 'parameter_invalid', param);
  });
});

describe('PATCH /customer-groups/:id', () => {
  test('changes name, slug, description and merges customFields; emits customer_group.updated', async () => {
    const g = await group({ name: 'Before', description: 'd', customFields: { keep: 1, drop: 2 } });
    await new Promise((r) => setTimeout(r, 5));
    const r = await h.api('PATCH', `${G}/${g.id}`, { body: { name: 'After', slug: `after-${n}`, description: null, customFields: { drop: null, add: 'x' } } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: g.id, object: 'customer_group', name: 'After', slug: `after-${n}`, description: null, customFields: { keep: 1, add: 'x' }, createdAt: g.createdAt });
    expect(r.body.updatedAt > g.updatedAt).toBe(true);
    const [e] = await h.eventsOf(r.requestId);
    expect(e.type).toBe('customer_group.updated');
    expect([...e.data.changes].sort()).toEqual(['customFields', 'description', 'name', 'slug']);
    expect(e.data.previous).toEqual({ name: 'Before', slug: g.slug, description: 'd', customFields: { keep: 1, drop: 2 } });
  });

  test('renaming keeps the slug; an unchanged body emits nothing', async () => {
    const g = await group({ name: 'Stable' });
    const r = await h.api('PATCH', `${G}/${g.id}`, { body: { name: 'Renamed' } });
    expect(r.body.slug).toBe(g.slug);
    const same = await h.api('PATCH', `${G}/${g.id}`, { body: { name: 'Renamed', slug: g.slug } });
    expect(same.body.updatedAt).toBe(r.body.updatedAt);
    expect(await h.eventsOf(same.requestId)).toEqual([]);
  });

  test('a taken slug is 409; externalId cannot be patched; customFields over 50 after merge is 400', async () => {
    const a = await group();
    const b = await group({ customFields: Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, i])) });
    expectError(await h.api('PATCH', `${G}/${b.id}`, { body: { slug: a.slug } }), 409, 'resource_conflict', 'slug');
    expectError(await h.api('PATCH', `${G}/${b.id}`, { body: { externalId: 'x' } }), 400, 'parameter_invalid', 'externalId');
    expectError(await h.api('PATCH', `${G}/${b.id}`, { body: { customFields: { more: 1 } } }), 400, 'parameter_invalid', 'customFields');
    expect((await h.api('GET', `${G}/${b.id}`)).body).toEqual(b);
  });
});

describe('members', () => {
  const M = (id: string) => `${G}/${id}/members`;

  test('add one or many; duplicates (already members or repeated) are skipped; customerCount and events follow', async () => {
    const g = await group();
    const [a, b, c] = [await customer(), await customer(), await customer()];
    const one = await h.api('POST', M(g.id), { body: { customerId: a.id } });
    expect(one.status).toBe(200);
    expect(one.body).toEqual({ added: 1, total: 1, skipped: 0 });
    const many = await h.api('POST', M(g.id), { body: { customerIds: [a.id, b.id, c.id, b.id] } });
    expect(many.body).toEqual({ added: 2, total: 4, skipped: 2 });
    const again = await h.api('POST', M(g.id), { body: { customerIds: [a.id, b.id] } });
    expect(again.body).toEqual({ added: 0, total: 2, skipped: 2 });
    expect(await h.eventsOf(again.requestId)).toEqual([]);

    expect((await h.api('GET', `${G}/${g.id}`)).body.customerCount).toBe(3);
    const events = await h.eventsOf(many.requestId);
    expect(events.map((e) => [e.type, e.data.member.id, e.data.group.customerCount])).toEqual([
      ['customer_group.member_added', b.id, 2],
      ['customer_group.member_added', c.id, 3],
    ]);
    expect(events[0].data.member).toEqual({ id: b.id, name: b.name, email: b.email, joinedGroupAt: expect.any(String) });

    const list = await h.api('GET', M(g.id));
    expect(list.status).toBe(200);
    expect(list.body.pagination).toEqual({ page: 1, pageSize: 25, total: 3, totalPages: 1, hasMore: false });
    expect(list.body.data.map((m: any) => m.id).sort()).toEqual([a.id, b.id, c.id].sort());
    expect(list.body.data.find((m: any) => m.id === a.id)).toEqual({ id: a.id, object: 'customer', name: a.name, email: a.email, joinedGroupAt: expect.any(String) });
    expect(list.body.data[list.body.data.length - 1].id).toBe(a.id); // newest first: a joined first
  });

  test('a member shows the customer\'s current name', async () => {
    const g = await group();
    const a = await customer();
    await h.api('POST', M(g.id), { body: { customerId: a.id } });
    await h.api('PATCH', `/teams/{team}/customers/${a.id}`, { body: { name: 'Renamed Member' } });
    expect((await h.api('GET', M(g.id))).body.data[0].name).toBe('Renamed Member');
  });

  test('an unknown customer (or one of another team or partition) is 404 and nothing is added', async () => {
    const g = await group();
    const a = await customer();
    const foreign = await customer({ teamId: TEAM_B });
    const live = await customer({ mode: 'live' });
    for (const missing of ['cus_doesnotexist000000000000', foreign.id, live.id, g.id]) {
      const r = await h.api('POST', M(g.id), { body: { customerIds: [a.id, missing] } });
      expectError(r, 404, 'resource_not_found');
      expect(r.body.error.message).toContain(missing);
      expect(await h.eventsOf(r.requestId)).toEqual([]);
    }
    expect((await h.api('GET', `${G}/${g.id}`)).body.customerCount).toBe(0);
    expect((await h.api('GET', M(g.id))).body.data).toEqual([]);
  });

  const bad: [string, unknown, string, string][] = [
    ['neither', {}, 'parameter_missing', 'customerIds'],
    ['both', { customerId: 'cus_a', customerIds: ['cus_b'] }, 'parameter_invalid', 'customerIds'],
    ['customerIds empty', { customerIds: [] }, 'parameter_invalid', 'customerIds'],
    ['customerIds of 101', { customerIds: Array.from({ length: 101 }, (_, i) => `cus_${i}`) }, 'parameter_invalid', 'customerIds'],
    ['customerIds wrong type', { customerIds: 'cus_a' }, 'parameter_invalid', 'customerIds'],
    ['customerId wrong type', { customerId: 5 }, 'parameter_invalid', 'customerId'],
    ['unknown field', { customerId: 'cus_a', role: 'x' }, 'parameter_invalid', 'role'],
  ];
  test.each(bad)('add refuses %s', async (_name, body, code, param) => {
    const g = await group();
    expectError(await h.api('POST', M(g.id), { body }), 400, code, param);
  });

  test('100 ids at once are accepted', async () => {
    const g = await group();
    const ids: string[] = [];
    for (let i = 0; i < 100; i++) ids.push((await customer()).id);
    const r = await h.api('POST', M(g.id), { body: { customerIds: ids } });
    expect(r.body).toEqual({ added: 100, total: 100, skipped: 0 });
    expect((await h.api('GET', `${G}/${g.id}`)).body.customerCount).toBe(100);
    const p4 = await h.api('GET', `${M(g.id)}?page=4`);
    expect(p4.body.data).toHaveLength(25);
    expect(p4.body.pagination).toEqual({ page: 4, pageSize: 25, total: 100, totalPages: 4, hasMore: false });
  }, 60_000);

  test('concurrent adds of overlapping customers keep customerCount exact and add each once', async () => {
    const g = await group();
    const cs = [];
    for (let i = 0; i < 6; i++) cs.push((await customer()).id);
    const replies = await Promise.all([
      h.api('POST', M(g.id), { body: { customerIds: cs.slice(0, 4) } }),
      h.api('POST', M(g.id), { body: { customerIds: cs.slice(2, 6) } }),
      h.api('POST', M(g.id), { body: { customerIds: cs } }),
      h.api('POST', M(g.id), { body: { customerId: cs[0] } }),
    ]);
    expect(replies.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect(replies.reduce((sum, r) => sum + r.body.added, 0)).toBe(6);
    expect((await h.api('GET', `${G}/${g.id}`)).body.customerCount).toBe(6);
    expect((await h.api('GET', M(g.id))).body.pagination.total).toBe(6);
    let added = 0;
    for (const r of replies) added += (await h.eventsOf(r.requestId)).length;
    expect(added).toBe(6);
  });

  test('remove: customerId required, 404 when not a member; otherwise removed, count down, event', async () => {
    const g = await group();
    const [a, b] = [await customer(), await customer()];
    await h.api('POST', M(g.id), { body: { customerIds: [a.id, b.id] } });
    expectError(await h.api('DELETE', M(g.id)), 400, 'parameter_missing', 'customerId');
    expectError(await h.api('DELETE', `${M(g.id)}?customerId=${a.id}&extra=1`), 400, 'parameter_invalid', 'extra');
    const c = await customer();
    const notMember = await h.api('DELETE', `${M(g.id)}?customerId=${c.id}`);
    expectError(notMember, 404, 'resource_not_found');
    expect(await h.eventsOf(notMember.requestId)).toEqual([]);

    const r = await h.api('DELETE', `${M(g.id)}?customerId=${a.id}`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ removed: true, customerId: a.id, groupId: g.id });
    expect((await h.api('GET', `${G}/${g.id}`)).body.customerCount).toBe(1);
    expect((await h.api('GET', M(g.id))).body.data.map((m: any) => m.id)).toEqual([b.id]);
    const [e] = await h.eventsOf(r.requestId);
    expect(e).toMatchObject({ type: 'customer_group.member_removed', data: { reason: 'removed', member: { id: a.id, name: a.name }, group: { id: g.id, customerCount: 1 } } });
    expect((await h.api('GET', `/teams/{team}/customers/${a.id}`)).status).toBe(200);
    expectError(await h.api('DELETE', `${M(g.id)}?customerId=${a.id}`), 404, 'resource_not_found');
  });

  test('an unknown group is 404 on every members route', async () => {
    const id = '3f1c1f0e-0000-4000-8000-00000000abcd';
    expectError(await h.api('GET', M(id)), 404, 'resource_not_found');
    expectError(await h.api('POST', M(id), { body: { customerId: 'cus_x' } }), 404, 'resource_not_found');
    expectError(await h.api('DELETE', `${M(id)}?customerId=cus_x`), 404, 'resource_not_found');
  });
});

describe('DELETE /customer-groups/:id', () => {
  test('detaches the members (customers kept), emits customer_group.deleted with membersDetached', async () => {
    const g = await group();
    const [a, b] = [await customer(), await customer()];
    await h.api('POST', `${G}/${g.id}/members`, { body: { customerIds: [a.id, b.id] } });
    const r = await h.api('DELETE', `${G}/${g.id}`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ deleted: true, id: g.id });
    expectError(await h.api('GET', `${G}/${g.id}`), 404, 'resource_not_found');
    expectError(await h.api('GET', `${G}/${g.id}/members`), 404, 'resource_not_found');
    for (const c of [a, b]) expect((await h.api('GET', `/teams/{team}/customers/${c.id}`)).status).toBe(200);
    expect(await count('group_memberships', { groupId: g.id })).toBe(0);
    const events = await h.eventsOf(r.requestId);
    expect(events.map((e) => e.type)).toEqual(['customer_group.deleted']);
    expect(events[0].data).toMatchObject({ groupId: g.id, membersDetached: 2, group: { id: g.id, customerCount: 2 } });
    // a deleted group's slug is free again
    expect((await h.api('POST', G, { body: { name: g.name } })).status).toBe(201);
    expectError(await h.api('DELETE', `${G}/${g.id}`), 404, 'resource_not_found');
  });
});

describe('tenancy', () => {
  test.each([['other team', { teamId: TEAM_B }], ['other partition', { mode: 'live' as const }]])('%s: every group route is 404', async (_n, as) => {
    const g = await group();
    const a = await customer();
    await h.api('POST', `${G}/${g.id}/members`, { body: { customerId: a.id } });
    expectError(await h.api('GET', `${G}/${g.id}`, { as }), 404, 'resource_not_found');
    expectError(await h.api('PATCH', `${G}/${g.id}`, { as, body: { name: 'x' } }), 404, 'resource_not_found');
    expectError(await h.api('DELETE', `${G}/${g.id}`, { as }), 404, 'resource_not_found');
    expectError(await h.api('GET', `${G}/${g.id}/members`, { as }), 404, 'resource_not_found');
    expectError(await h.api('POST', `${G}/${g.id}/members`, { as, body: { customerId: a.id } }), 404, 'resource_not_found');
    expectError(await h.api('DELETE', `${G}/${g.id}/members?customerId=${a.id}`, { as }), 404, 'resource_not_found');
    expect((await h.api('GET', `${G}/${g.id}`)).body.customerCount).toBe(1);
  });

  test('a customer id in the group path is 404', async () => {
    const a = await customer();
    expectError(await h.api('GET', `${G}/${a.id}`), 404, 'resource_not_found');
  });
});
