/** Customers over HTTP on the embedded MongoDB and the memory bus: every rule, event and scope. */
import { customerSnapshotSchema } from '@helpdesk/contracts';
import { membershipModel } from '../src/customer-groups/members/model';
import { expectError, startHarness, TEAM_A, TEAM_B, type Caller, type Harness } from './helpers';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
}, 30_000);
afterAll(async () => {
  await h?.stop();
});

const C = '/teams/{team}/customers';
let n = 0;
const email = (prefix = 'c') => `${prefix}${++n}@example.com`;
const create = async (body: Record<string, unknown> = {}, as?: Caller) => {
  const r = await h.api('POST', C, { body: { name: 'Ada Lovelace', email: email(), ...body }, as });
  if (r.status !== 201) throw new Error(`create: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.data;
};
const PUBLIC_KEYS = ['createdAt', 'customFields', 'email', 'id', 'metadata', 'name', 'notes', 'sentiment', 'status', 'tags', 'ticketCount', 'updatedAt'];
const count = (coll: string, filter: Record<string, unknown> = {}) => h.svc.conn.collection(coll).countDocuments(filter);

describe('POST /customers', () => {
  test('creates an active, neutral customer with no tickets, answers 201 in the envelope and emits customer.created', async () => {
    const r = await h.api('POST', C, { body: { name: 'Grace Hopper', email: 'Grace@Example.com' } });
    expect(r.status).toBe(201);
    expect(r.body.success).toBe(true);
    expect(r.body.meta.requestId).toBe(r.requestId);
    expect(r.headers.get('x-svc-request-id')).toBe(r.requestId);
    const c = r.body.data;
    expect(Object.keys(c).sort()).toEqual(PUBLIC_KEYS);
    expect(c).toMatchObject({
      name: 'Grace Hopper', email: 'Grace@Example.com', status: 'active', sentiment: 'neutral', tags: [], notes: null, metadata: {}, ticketCount: 0,
    });
    expect(c.id).toMatch(/^cus_[A-Za-z0-9]{24}$/);
    expect(c.createdAt).toBe(c.updatedAt);
    expect((await h.api('GET', `${C}/${c.id}`)).body.data).toEqual(c);

    const events = await h.eventsOf(r.requestId);
    expect(events.map((e) => e.type)).toEqual(['customer.created']);
    expect(events[0]).toMatchObject({ teamId: TEAM_A, mode: 'test', version: 1, actor: { type: 'member', id: 'mem_member000001' } });
    expect(customerSnapshotSchema.parse(events[0].data.customer)).toEqual({ ...c, rev: 0 });
  });

  test('keeps tags (trimmed, deduplicated), notes and metadata (null values dropped)', async () => {
    const metadata = { plan: 'pro', nested: { a: 1 }, gone: null, ...Object.fromEntries(Array.from({ length: 47 }, (_, i) => [`k${i}`, i])) };
    const c = await create({ tags: [' vip ', 'b2b', 'vip'], notes: 'calls on Fridays', metadata });
    expect(c).toMatchObject({ tags: ['vip', 'b2b'], notes: 'calls on Fridays' });
    expect(c.metadata).not.toHaveProperty('gone');
    expect(Object.keys(c.metadata)).toHaveLength(49);
  });

  test('email is unique in the team and partition, case-insensitively: 409 param email, nothing written, no event', async () => {
    const c = await create({ email: 'Dup@Example.com' });
    const before = await count('customers');
    const r = await h.api('POST', C, { body: { name: 'Other', email: 'dup@EXAMPLE.com' } });
    expectError(r, 409, 'resource_conflict', 'email');
    expect(await count('customers')).toBe(before);
    expect(await h.eventsOf(r.requestId)).toEqual([]);
    // Other partition and other team may use it.
    expect((await h.api('POST', C, { body: { name: 'Live', email: 'dup@example.com' }, as: { mode: 'live' } })).status).toBe(201);
    expect((await h.api('POST', C, { body: { name: 'B', email: 'dup@example.com' }, as: { teamId: TEAM_B } })).status).toBe(201);
    expect((await h.api('GET', `${C}/${c.id}`)).body.data.email).toBe('Dup@Example.com');
  });

  test('concurrent creates with the same email: exactly one 201 and one 409', async () => {
    const e = email('race');
    const replies = await Promise.all(Array.from({ length: 4 }, (_, i) => h.api('POST', C, { body: { name: `R${i}`, email: i % 2 ? e.toUpperCase() : e } })));
    expect(replies.map((r) => r.status).sort()).toEqual([201, 409, 409, 409]);
    for (const r of replies.filter((x) => x.status === 409)) expectError(r, 409, 'resource_conflict', 'email');
    expect(await count('customers', { emailLower: e })).toBe(1);
  });

  const bad: [string, unknown, number, string, string | undefined][] = [
    ['missing name', { email: 'a@b.co' }, 400, 'parameter_missing', 'name'],
    ['missing email', { name: 'A' }, 400, 'parameter_missing', 'email'],
    ['missing both (name first)', {}, 400, 'parameter_missing', 'name'],
    ['email null', { name: 'A', email: null }, 400, 'parameter_invalid', 'email'],
    ['email not an email', { name: 'A', email: 'nope' }, 400, 'parameter_invalid', 'email'],
    ['email wrong type', { name: 'A', email: 42 }, 400, 'parameter_invalid', 'email'],
    ['name empty', { name: '', email: 'a@b.co' }, 400, 'parameter_invalid', 'name'],
    ['name blank', { name: '  ', email: 'a@b.co' }, 400, 'parameter_invalid', 'name'],
    ['name of 256', { name: 'n'.repeat(256), email: 'a@b.co' }, 400, 'parameter_invalid', 'name'],
    ['unknown field', { name: 'A', email: 'a@b.co', colour: 'red' }, 400, 'parameter_invalid', 'colour'],
    ['status is not a create field', { name: 'A', email: 'a@b.co', status: 'active' }, 400, 'parameter_invalid', 'status'],
    ['sentiment is not a create field', { name: 'A', email: 'a@b.co', sentiment: 'positive' }, 400, 'parameter_invalid', 'sentiment'],
    ['tags not an array', { name: 'A', email: 'a@b.co', tags: 'x' }, 400, 'parameter_invalid', 'tags'],
    ['51 tags', { name: 'A', email: 'a@b.co', tags: Array.from({ length: 51 }, (_, i) => `t${i}`) }, 400, 'parameter_invalid', 'tags'],
    ['metadata of 51 keys', { name: 'A', email: 'a@b.co', metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i])) }, 400, 'parameter_invalid', 'metadata'],
    ['metadata key with $', { name: 'A', email: 'a@b.co', metadata: { $x: 1 } }, 400, 'parameter_invalid', 'metadata'],
    ['notes over 10,000', { name: 'A', email: 'a@b.co', notes: 'n'.repeat(10_001) }, 400, 'parameter_invalid', 'notes'],
  ];
  test.each(bad)('refuses %s, writes nothing, emits nothing', async (_name, body, status, code, param) => {
    const before = await count('customers');
    const r = await h.api('POST', C, { body });
    expectError(r, status, code, param);
    expect(await count('customers')).toBe(before);
    expect(await h.eventsOf(r.requestId)).toEqual([]);
  });

  test('a body that is not an object is invalid_json', async () => {
    expectError(await h.api('POST', C, { body: [{ name: 'A' }] }), 400, 'invalid_json');
  });
});

describe('GET /customers', () => {
  const as: Caller = { teamId: '7a1c1f0e-0000-4000-8000-000000000001' };
  const list = (qs = '') => h.api('GET', `${C}${qs ? `?${qs}` : ''}`, { as });
  const names = async (qs = '') => {
    const r = await list(qs);
    expect(r.status).toBe(200);
    return r.body.data.map((c: any) => c.name);
  };
  beforeAll(async () => {
    await create({ name: 'Alan Turing', email: 'alan@bletchley.uk' }, as);
    await create({ name: 'Barbara Liskov', email: 'barbara@mit.edu' }, as);
    await create({ name: 'Claude (Shannon) [x]', email: 'claude@bell.com' }, as);
    const d = await create({ name: 'Dorothy Vaughan', email: 'dorothy@nasa.gov' }, as);
    expect((await h.api('POST', '/teams/{team}/customer-statuses', { as, body: { key: 'vip', label: 'VIP' } })).status).toBe(201);
    expect((await h.api('PATCH', `${C}/${d.id}`, { as, body: { status: 'vip', sentiment: 'negative' } })).status).toBe(200);
  });

  test('newest first, pagination in meta', async () => {
    const r = await list();
    expect(r.body.data.map((c: any) => c.name)).toEqual(['Dorothy Vaughan', 'Claude (Shannon) [x]', 'Barbara Liskov', 'Alan Turing']);
    for (const c of r.body.data) expect(Object.keys(c).sort()).toEqual(PUBLIC_KEYS);
    expect(r.body.meta.pagination).toEqual({ page: 1, pageSize: 20, total: 4, totalPages: 1, hasMore: false });
  });

  test('pages', async () => {
    const p1 = await list('pageSize=3');
    expect(p1.body.meta.pagination).toEqual({ page: 1, pageSize: 3, total: 4, totalPages: 2, hasMore: true });
    expect((await names('pageSize=3&page=2'))).toEqual(['Alan Turing']);
    expect(await names('page=9')).toEqual([]);
  });

  test('status (built-in or team-added) and sentiment filters', async () => {
    expect(await names('status=vip')).toEqual(['Dorothy Vaughan']);
    expect(await names('status=active')).toHaveLength(3);
    expect(await names('status=churned')).toEqual([]);
    expect(await names('sentiment=negative')).toEqual(['Dorothy Vaughan']);
    expect(await names('sentiment=neutral&status=active')).toHaveLength(3);
  });

  test('search over name and email, case-insensitive, regex characters literal', async () => {
    expect(await names('search=TURING')).toEqual(['Alan Turing']);
    expect(await names('search=mit.edu')).toEqual(['Barbara Liskov']);
    expect(await names('search=NASA')).toEqual(['Dorothy Vaughan']);
    expect(await names('search=(shannon)%20%5Bx%5D')).toEqual(['Claude (Shannon) [x]']);
    expect(await names('search=.*')).toEqual([]);
    expect(await names('search=')).toHaveLength(4);
  });

  const badQueries: [string, string][] = [
    ['status=unknown', 'status'],
    ['sentiment=angry', 'sentiment'],
    ['pageSize=101', 'pageSize'],
    ['pageSize=0', 'pageSize'],
    ['page=0', 'page'],
    ['page=x', 'page'],
    ['colour=red', 'colour'],
    [`search=${'s'.repeat(201)}`, 'search'],
  ];
  test.each(badQueries)('?%s is 400 naming %s', async (qs, param) => {
    expectError(await list(qs), 400, 'parameter_invalid', param);
  });
});

describe('PATCH /customers/:id', () => {
  const patch = (id: string, body: unknown, as?: Caller) => h.api('PATCH', `${C}/${id}`, { body, as });

  test('changes the given fields and emits customer.updated with changes and previous; rev goes up', async () => {
    const c = await create({ name: 'Old', tags: ['a'], notes: 'n', metadata: { keep: 1, drop: 2, change: 3 } });
    await new Promise((r) => setTimeout(r, 5));
    const newEmail = email('new');
    const r = await patch(c.id, { name: 'New', email: newEmail, status: 'churned', sentiment: 'positive', tags: ['b', 'c'], notes: null, metadata: { drop: null, change: 'x', add: true } });
    expect(r.status).toBe(200);
    const u = r.body.data;
    expect(u).toMatchObject({
      id: c.id, name: 'New', email: newEmail, status: 'churned', sentiment: 'positive', tags: ['b', 'c'], notes: null,
      metadata: { keep: 1, change: 'x', add: true }, createdAt: c.createdAt, ticketCount: 0,
    });
    expect(u.updatedAt > c.updatedAt).toBe(true);
    const [e] = await h.eventsOf(r.requestId);
    expect(e.type).toBe('customer.updated');
    expect([...e.data.changes].sort()).toEqual(['email', 'metadata', 'name', 'notes', 'sentiment', 'status', 'tags']);
    expect(e.data.previous).toEqual({
      name: 'Old', email: c.email, status: 'active', sentiment: 'neutral', tags: ['a'], notes: 'n', metadata: { keep: 1, drop: 2, change: 3 },
    });
    expect(e.data.customer).toEqual({ ...u, rev: 1 });
    expect((await h.api('GET', `${C}/${c.id}`)).body.data).toEqual(u);
  });

  test('an empty body, or the current values, change nothing and emit nothing', async () => {
    const c = await create({ tags: ['x'], metadata: { a: 1 } });
    for (const body of [{}, { name: c.name, email: c.email, status: 'active', tags: ['x'], notes: null, metadata: { a: 1, b: null } }]) {
      const r = await patch(c.id, body);
      expect(r.status).toBe(200);
      expect(r.body.data).toEqual(c);
      expect(await h.eventsOf(r.requestId)).toEqual([]);
    }
  });

  test('email: another customer\'s (any case) is 409; a case change of its own is fine', async () => {
    const a = await create({ email: 'owner@example.com' });
    const b = await create();
    const r = await patch(b.id, { email: 'OWNER@example.com', name: 'Thief' });
    expectError(r, 409, 'resource_conflict', 'email');
    expect(await h.eventsOf(r.requestId)).toEqual([]);
    expect((await h.api('GET', `${C}/${b.id}`)).body.data.name).toBe(b.name);
    const own = await patch(a.id, { email: 'Owner@Example.com' });
    expect(own.body.data.email).toBe('Owner@Example.com');
    expect((await h.eventsOf(own.requestId))[0].data.changes).toEqual(['email']);
  });

  test('status: a built-in or team-added status only', async () => {
    const c = await create();
    expectError(await patch(c.id, { status: 'gold' }), 400, 'parameter_invalid', 'status');
    expect((await h.api('POST', '/teams/{team}/customer-statuses', { body: { key: 'gold', label: 'Gold' } })).status).toBe(201);
    expect((await patch(c.id, { status: 'gold' })).body.data.status).toBe('gold');
    // another team's status is not this team's
    const other = await create({}, { teamId: TEAM_B });
    expectError(await patch(other.id, { status: 'gold' }, { teamId: TEAM_B }), 400, 'parameter_invalid', 'status');
  });

  test('sentiment override pins the value; null clears it and the calculated value shows again', async () => {
    const c = await create();
    const set = await patch(c.id, { sentiment: 'negative' });
    expect(set.body.data.sentiment).toBe('negative');
    const [e] = await h.eventsOf(set.requestId);
    expect(e.data).toMatchObject({ changes: ['sentiment'], previous: { sentiment: 'neutral' } });
    const cleared = await patch(c.id, { sentiment: null });
    expect(cleared.body.data.sentiment).toBe('neutral');
    expect((await h.eventsOf(cleared.requestId))[0].data).toMatchObject({ changes: ['sentiment'], previous: { sentiment: 'negative' } });
    const again = await patch(c.id, { sentiment: null });
    expect(await h.eventsOf(again.requestId)).toEqual([]);
  });

  test('metadata: at most 50 keys after the merge; a swap that stays at 50 is fine', async () => {
    const metadata = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, i]));
    const c = await create({ metadata });
    const r = await patch(c.id, { metadata: { extra: 1 }, name: 'Renamed' });
    expectError(r, 400, 'parameter_invalid', 'metadata');
    expect(await h.eventsOf(r.requestId)).toEqual([]);
    expect((await h.api('GET', `${C}/${c.id}`)).body.data.name).toBe(c.name);
    const swap = await patch(c.id, { metadata: { extra: 1, k0: null } });
    expect(swap.status).toBe(200);
    expect(Object.keys(swap.body.data.metadata)).toHaveLength(50);
  });

  const bad: [string, unknown, string, string][] = [
    ['unknown field', { colour: 'red' }, 'parameter_invalid', 'colour'],
    ['ticketCount is read-only', { ticketCount: 3 }, 'parameter_invalid', 'ticketCount'],
    ['name null', { name: null }, 'parameter_invalid', 'name'],
    ['email null', { email: null }, 'parameter_invalid', 'email'],
    ['email invalid', { email: 'x@' }, 'parameter_invalid', 'email'],
    ['sentiment invalid', { sentiment: 'angry' }, 'parameter_invalid', 'sentiment'],
    ['status wrong type', { status: 1 }, 'parameter_invalid', 'status'],
    ['tags wrong type', { tags: [1] }, 'parameter_invalid', 'tags.0'],
    ['metadata wrong type', { metadata: 'x' }, 'parameter_invalid', 'metadata'],
  ];
  test.each(bad)('refuses %s; nothing changes', async (_name, body, code, param) => {
    const c = await create();
    const r = await patch(c.id, body);
    expectError(r, 400, code, param);
    expect(await h.eventsOf(r.requestId)).toEqual([]);
    expect((await h.api('GET', `${C}/${c.id}`)).body.data).toEqual(c);
  });

  test('concurrent PATCHes lose nothing: every metadata merge survives, one event each', async () => {
    const c = await create();
    const replies = await Promise.all(Array.from({ length: 8 }, (_, i) => patch(c.id, { metadata: { [`k${i}`]: i } })));
    expect(replies.map((r) => r.status)).toEqual(Array(8).fill(200));
    const after = (await h.api('GET', `${C}/${c.id}`)).body.data;
    expect(after.metadata).toEqual(Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`k${i}`, i])));
    const revs: number[] = [];
    for (const r of replies) {
      const ev = await h.eventsOf(r.requestId);
      expect(ev).toHaveLength(1);
      revs.push(ev[0].data.customer.rev);
    }
    expect(revs.sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });

  test('unknown customer is 404 with no event', async () => {
    const r = await patch('cus_doesnotexist000000000000', { name: 'x' });
    expectError(r, 404, 'resource_not_found');
    expect(await h.eventsOf(r.requestId)).toEqual([]);
  });
});

describe('DELETE /customers/:id', () => {
  test('removes the customer and its memberships, lowers the groups\' counts, emits member_removed per group then customer.deleted', async () => {
    const c = await create({ name: 'Leaving' });
    const stays = await create({ name: 'Staying' });
    const g1 = (await h.api('POST', '/teams/{team}/customer-groups', { body: { name: `Group one ${n}` } })).body;
    const g2 = (await h.api('POST', '/teams/{team}/customer-groups', { body: { name: `Group two ${n}` } })).body;
    for (const g of [g1, g2]) {
      expect((await h.api('POST', `/teams/{team}/customer-groups/${g.id}/members`, { body: { customerIds: [c.id, stays.id] } })).body).toEqual({ added: 2, total: 2, skipped: 0 });
    }
    const r = await h.api('DELETE', `${C}/${c.id}`);
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({ id: c.id, deleted: true });
    expectError(await h.api('GET', `${C}/${c.id}`), 404, 'resource_not_found');
    for (const g of [g1, g2]) {
      expect((await h.api('GET', `/teams/{team}/customer-groups/${g.id}`)).body.customerCount).toBe(1);
      const members = await h.api('GET', `/teams/{team}/customer-groups/${g.id}/members`);
      expect(members.body.data.map((m: any) => m.id)).toEqual([stays.id]);
    }
    expect(await membershipModel(h.svc.conn).countDocuments({ teamId: TEAM_A, mode: 'test', customerId: c.id })).toBe(0);

    const events = await h.eventsOf(r.requestId);
    expect(events.map((e) => e.type)).toEqual(['customer_group.member_removed', 'customer_group.member_removed', 'customer.deleted']);
    expect(events.slice(0, 2).map((e) => [e.data.group.id, e.data.group.customerCount, e.data.member.id, e.data.reason]).sort()).toEqual(
      [[g1.id, 1, c.id, 'customer_deleted'], [g2.id, 1, c.id, 'customer_deleted']].sort(),
    );
    expect(events[2].data).toMatchObject({ customerId: c.id, customer: { id: c.id, name: 'Leaving', rev: 1 } });

    const again = await h.api('DELETE', `${C}/${c.id}`);
    expectError(again, 404, 'resource_not_found');
    expect(await h.eventsOf(again.requestId)).toEqual([]);
  });

  test('the email is free again after a delete', async () => {
    const c = await create({ email: 'reuse@example.com' });
    expect((await h.api('DELETE', `${C}/${c.id}`)).status).toBe(200);
    expect((await h.api('POST', C, { body: { name: 'Again', email: 'REUSE@example.com' } })).status).toBe(201);
  });
});

describe('tenancy: team and partition come from the token', () => {
  let id: string;
  beforeAll(async () => {
    id = (await create({ name: 'Scoped' })).id;
  });
  const others: [string, Caller][] = [
    ['other team', { teamId: TEAM_B }],
    ['other partition', { mode: 'live' }],
  ];
  test.each(others)('%s: GET, PATCH, DELETE are 404 and the list does not show it', async (_name, as) => {
    expectError(await h.api('GET', `${C}/${id}`, { as }), 404, 'resource_not_found');
    expectError(await h.api('PATCH', `${C}/${id}`, { as, body: { name: 'stolen' } }), 404, 'resource_not_found');
    expectError(await h.api('DELETE', `${C}/${id}`, { as }), 404, 'resource_not_found');
    const list = await h.api('GET', `${C}?pageSize=100&search=Scoped`, { as });
    expect(list.body.data.map((c: any) => c.id)).not.toContain(id);
    expect((await h.api('GET', `${C}/${id}`)).body.data.name).toBe('Scoped');
  });

  test('an id of another kind is 404', async () => {
    expectError(await h.api('GET', `${C}/tkt_abcdefgh12345678`), 404, 'resource_not_found');
    expectError(await h.api('GET', `${C}/3f1c1f0e-0000-4000-8000-000000000001`), 404, 'resource_not_found');
  });
});
