import { startTestPlatform, type TestPlatform } from '../support/platform';
import { ISO, expectError, expectOk } from './helpdesk-helpers';
import { CUSTOMER_KEYS, CUS_ID, CustomerEvents } from './customers-helpers';

let tp: TestPlatform;
let log: CustomerEvents;
const path = () => `${tp.teamPath}/customers`;
let n = 0;
const email = (p = 'e2e') => `${p}${++n}.${Date.now()}@example.com`;

beforeAll(async () => {
  tp = await startTestPlatform();
  log = await CustomerEvents.start(tp);
}, 60_000);
afterAll(async () => {
  await tp?.stop();
}, 60_000);

async function create(body: Record<string, unknown> = {}): Promise<any> {
  return expectOk(await tp.api.post(path(), { name: 'Ada Lovelace', email: email(), ...body }), 201);
}
const total = async (): Promise<number> => (await tp.api.get(path(), { query: { pageSize: 1 } })).body.meta.pagination.total;

/** A refused request: the error, then nothing stored (list total unchanged) and nothing published. */
async function expectRefusedWithoutEffect(send: () => Promise<any>, status: number, type: string, code: string, param?: string) {
  await log.settle();
  const before = await total();
  const res = await send();
  expectError(res, status, type, code, param);
  await log.settle();
  expect(log.ofRequest(res.body.error.request_id)).toEqual([]);
  expect(await total()).toBe(before);
  return res;
}

describe('POST /customers through the gateway', () => {
  it('creates an active, neutral customer with no tickets, stores it and emits one customer.created', async () => {
    const address = email('Grace.Hopper');
    const res = await tp.api.post(path(), { name: 'Grace Hopper', email: address, tags: [' navy ', 'cobol', 'navy'], notes: 'pioneer', metadata: { rank: 'admiral', drop: null } });
    const c = expectOk(res, 201);
    expect(Object.keys(c).sort()).toEqual(CUSTOMER_KEYS);
    expect(c).toMatchObject({ name: 'Grace Hopper', email: address, status: 'active', sentiment: 'neutral', tags: ['navy', 'cobol'], notes: 'pioneer', metadata: { rank: 'admiral' }, ticketCount: 0 });
    expect(c.id).toMatch(CUS_ID);
    expect(c.createdAt).toMatch(ISO);
    expect(c.updatedAt).toBe(c.createdAt);
    expect(expectOk(await tp.api.get(`${path()}/${c.id}`), 200)).toEqual(c);

    const [e] = await log.waitForRequest(res.body.meta.requestId, 1);
    expect(e).toMatchObject({ type: 'customer.created', version: 1, teamId: tp.team.teamId, mode: 'test' });
    expect(e.data.customer).toEqual({ ...c, rev: 0 });
  });

  it('answers 409 resource_conflict param email for a duplicate email in any case, and writes nothing', async () => {
    const c = await create({ email: email('Dup') });
    await expectRefusedWithoutEffect(() => tp.api.post(path(), { name: 'Copy', email: c.email.toUpperCase() }), 409, 'conflict_error', 'resource_conflict', 'email');
  });

  it('the same email is free in the live partition and in another team', async () => {
    const c = await create();
    expectOk(await tp.api.post(path(), { name: 'Live twin', email: c.email }, { key: tp.team.sk_live }), 201);
    expectOk(await tp.api.post(`/teams/${tp.otherTeam.teamId}/customers`, { name: 'Other twin', email: c.email }, { key: tp.otherTeam.sk_test }), 201);
  });

  const bad: [string, unknown, string, string][] = [
    ['missing name', { email: 'a@example.com' }, 'parameter_missing', 'name'],
    ['missing email', { name: 'A' }, 'parameter_missing', 'email'],
    ['email null', { name: 'A', email: null }, 'parameter_invalid', 'email'],
    ['email not an address', { name: 'A', email: 'not-an-email' }, 'parameter_invalid', 'email'],
    ['name wrong type', { name: ['A'], email: 'a@example.com' }, 'parameter_invalid', 'name'],
    ['name of 256 characters', { name: 'x'.repeat(256), email: 'a@example.com' }, 'parameter_invalid', 'name'],
    ['unknown field', { name: 'A', email: 'a@example.com', phone: '123' }, 'parameter_invalid', 'phone'],
    ['status on create', { name: 'A', email: 'a@example.com', status: 'churned' }, 'parameter_invalid', 'status'],
    ['tags wrong type', { name: 'A', email: 'a@example.com', tags: 'vip' }, 'parameter_invalid', 'tags'],
    ['51 metadata keys', { name: 'A', email: 'a@example.com', metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i])) }, 'parameter_invalid', 'metadata'],
  ];
  it.each(bad)('refuses %s with 400, writes nothing and emits nothing', async (_name, body, code, param) => {
    await expectRefusedWithoutEffect(() => tp.api.post(path(), body), 400, 'invalid_request_error', code, param);
  });

  it('refuses a body that is not a JSON object', async () => {
    expectError(await tp.api.post(path(), ['x']), 400, 'invalid_request_error', 'invalid_json', undefined);
    expectError(await tp.api.request('POST', path(), { rawBody: '{"name":', headers: { 'content-type': 'application/json' } }), 400, 'invalid_request_error', 'invalid_json', undefined);
  });

  it('keys: publishable 403 publishable_key_write, another team 403 team_access_denied; nothing written or emitted', async () => {
    await expectRefusedWithoutEffect(() => tp.api.post(path(), { name: 'P', email: email() }, { key: tp.team.pk_test }), 403, 'authorization_error', 'publishable_key_write');
    await expectRefusedWithoutEffect(() => tp.api.post(path(), { name: 'O', email: email() }, { key: tp.otherTeam.sk_test }), 403, 'authorization_error', 'team_access_denied');
  });
});

describe('GET /customers and /customers/{id} through the gateway', () => {
  let team: { path: string; key: string };
  const list = (query: Record<string, string | number> = {}) => tp.api.get(`${team.path}/customers`, { key: team.key, query });
  const names = async (query: Record<string, string | number> = {}) => expectOk(await list(query), 200).map((c: any) => c.name);

  beforeAll(async () => {
    // A fresh team: its list holds exactly these customers.
    const keys = await tp.createTeam();
    team = { path: `/teams/${keys.teamId}`, key: keys.sk_test };
    let last: any;
    for (const [name, address] of [['Alan Turing', 'alan@bletchley.example'], ['Barbara Liskov', 'barbara@mit.example'], ['Claude Shannon', 'claude@bell.example']]) {
      last = expectOk(await tp.api.post(`${team.path}/customers`, { name, email: address }, { key: team.key }), 201);
    }
    expectOk(await tp.api.post(`${team.path}/customer-statuses`, { key: 'vip', label: 'VIP' }, { key: team.key }), 201);
    expectOk(await tp.api.patch(`${team.path}/customers/${last.id}`, { status: 'vip', sentiment: 'positive' }, { key: team.key }), 200);
  });

  it('lists newest first with meta.pagination, pages, and filters by status, sentiment and search', async () => {
    const res = await list();
    const data = expectOk(res, 200);
    expect(data.map((c: any) => c.name)).toEqual(['Claude Shannon', 'Barbara Liskov', 'Alan Turing']);
    for (const c of data) expect(Object.keys(c).sort()).toEqual(CUSTOMER_KEYS);
    expect(res.body.meta.pagination).toEqual({ page: 1, pageSize: 20, total: 3, totalPages: 1, hasMore: false });
    const p2 = await list({ pageSize: 2, page: 2 });
    expect(expectOk(p2, 200).map((c: any) => c.name)).toEqual(['Alan Turing']);
    expect(p2.body.meta.pagination).toEqual({ page: 2, pageSize: 2, total: 3, totalPages: 2, hasMore: false });
    expect(await names({ status: 'vip' })).toEqual(['Claude Shannon']);
    expect(await names({ status: 'active' })).toEqual(['Barbara Liskov', 'Alan Turing']);
    expect(await names({ sentiment: 'positive' })).toEqual(['Claude Shannon']);
    expect(await names({ sentiment: 'negative' })).toEqual([]);
    expect(await names({ search: 'LISKOV' })).toEqual(['Barbara Liskov']);
    expect(await names({ search: 'bell.example' })).toEqual(['Claude Shannon']);
    expect(await names({ search: 'a.*' })).toEqual([]);
  });

  it.each([
    ['an unknown status', { status: 'gold' }, 'status'],
    ['an unknown sentiment', { sentiment: 'angry' }, 'sentiment'],
    ['pageSize over 100', { pageSize: 101 }, 'pageSize'],
    ['page 0', { page: 0 }, 'page'],
    ['an unknown parameter', { sort: 'name' }, 'sort'],
  ])('refuses %s with 400 naming it', async (_name, query, param) => {
    expectError(await list(query as any), 400, 'invalid_request_error', 'parameter_invalid', param);
  });

  it('reads are refused to publishable keys and to another team; another partition and wrong ids are 404', async () => {
    const c = await create();
    const one = `${path()}/${c.id}`;
    expectError(await tp.api.get(path(), { key: tp.team.pk_test }), 403, 'authorization_error', 'publishable_key_forbidden');
    expectError(await tp.api.get(one, { key: tp.team.pk_test }), 403, 'authorization_error', 'publishable_key_forbidden');
    expectError(await tp.api.get(one, { key: tp.otherTeam.sk_test }), 403, 'authorization_error', 'team_access_denied');
    expectError(await tp.api.get(one, { key: tp.team.sk_live }), 404, 'not_found_error', 'resource_not_found');
    expect(expectOk(await tp.api.get(path(), { key: tp.team.sk_live, query: { search: c.email } }), 200)).toEqual([]);
    expectError(await tp.api.get(`/teams/${tp.otherTeam.teamId}/customers/${c.id}`, { key: tp.otherTeam.sk_test }), 404, 'not_found_error', 'resource_not_found');
    expectError(await tp.api.get(`${path()}/tkt_abcdefgh12345678`), 404, 'not_found_error', 'resource_not_found');
    expectError(await tp.api.get(`${path()}/not-an-id`), 400, 'invalid_request_error', 'invalid_id_format', 'customerId');
  });
});

describe('PATCH /customers/{id} through the gateway', () => {
  it('changes the given fields, merges metadata, emits customer.updated with changes and previous', async () => {
    const c = await create({ tags: ['a'], metadata: { keep: 1, drop: 2 } });
    const address = email('new');
    const res = await tp.api.patch(`${path()}/${c.id}`, { name: 'Ada King', email: address, status: 'inactive', sentiment: 'negative', tags: ['b'], notes: 'n', metadata: { drop: null, add: 3 } });
    const u = expectOk(res, 200);
    expect(u).toMatchObject({ id: c.id, name: 'Ada King', email: address, status: 'inactive', sentiment: 'negative', tags: ['b'], notes: 'n', metadata: { keep: 1, add: 3 }, ticketCount: 0, createdAt: c.createdAt });
    expect(expectOk(await tp.api.get(`${path()}/${c.id}`), 200)).toEqual(u);
    const [e] = await log.waitForRequest(res.body.meta.requestId, 1);
    expect(e.type).toBe('customer.updated');
    expect([...e.data.changes].sort()).toEqual(['email', 'metadata', 'name', 'notes', 'sentiment', 'status', 'tags']);
    expect(e.data.previous).toEqual({ name: c.name, email: c.email, status: 'active', sentiment: 'neutral', tags: ['a'], notes: null, metadata: { keep: 1, drop: 2 } });
    expect(e.data.customer).toEqual({ ...u, rev: 1 });
  });

  it('sentiment null clears the override: the calculated value shows again', async () => {
    const c = await create();
    expect(expectOk(await tp.api.patch(`${path()}/${c.id}`, { sentiment: 'positive' }), 200).sentiment).toBe('positive');
    expect(expectOk(await tp.api.patch(`${path()}/${c.id}`, { sentiment: null }), 200).sentiment).toBe('neutral');
  });

  it('a PATCH that changes nothing emits nothing', async () => {
    const c = await create();
    const res = await tp.api.patch(`${path()}/${c.id}`, { name: c.name });
    expect(expectOk(res, 200)).toEqual(c);
    await log.settle();
    expect(log.ofRequest(res.body.meta.requestId)).toEqual([]);
  });

  const bad: [string, unknown, number, string, string, string | undefined][] = [
    ['an unknown status', { status: 'gold' }, 400, 'invalid_request_error', 'parameter_invalid', 'status'],
    ['email null', { email: null }, 400, 'invalid_request_error', 'parameter_invalid', 'email'],
    ['sentiment out of the enum', { sentiment: 'furious' }, 400, 'invalid_request_error', 'parameter_invalid', 'sentiment'],
    ['an unknown field', { ticketCount: 9 }, 400, 'invalid_request_error', 'parameter_invalid', 'ticketCount'],
    ['metadata over 50 keys after the merge', { metadata: Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`m${i}`, i])) }, 400, 'invalid_request_error', 'parameter_invalid', 'metadata'],
  ];
  it.each(bad)('refuses %s, changes nothing, emits nothing', async (_name, body, status, type, code, param) => {
    const c = await create({ metadata: { a: 1 } });
    const res = await tp.api.patch(`${path()}/${c.id}`, body);
    expectError(res, status, type, code, param);
    await log.settle();
    expect(log.ofRequest(res.body.error.request_id)).toEqual([]);
    expect(expectOk(await tp.api.get(`${path()}/${c.id}`), 200)).toEqual(c);
  });

  it('another customer\'s email is 409 param email', async () => {
    const a = await create();
    const b = await create();
    expectError(await tp.api.patch(`${path()}/${b.id}`, { email: a.email.toUpperCase() }), 409, 'conflict_error', 'resource_conflict', 'email');
  });

  it('keys and scope: publishable 403, other team 403, live key 404; the customer is unchanged', async () => {
    const c = await create();
    const one = `${path()}/${c.id}`;
    expectError(await tp.api.patch(one, { name: 'x' }, { key: tp.team.pk_test }), 403, 'authorization_error', 'publishable_key_write');
    expectError(await tp.api.patch(one, { name: 'x' }, { key: tp.otherTeam.sk_test }), 403, 'authorization_error', 'team_access_denied');
    expectError(await tp.api.patch(one, { name: 'x' }, { key: tp.team.sk_live }), 404, 'not_found_error', 'resource_not_found');
    expect(expectOk(await tp.api.get(one), 200)).toEqual(c);
  });
});

describe('DELETE /customers/{id} through the gateway', () => {
  it('deletes the customer, answers {id, deleted}, and emits customer.deleted; a second delete is 404', async () => {
    const c = await create();
    const res = await tp.api.delete(`${path()}/${c.id}`);
    expect(expectOk(res, 200)).toEqual({ id: c.id, deleted: true });
    expectError(await tp.api.get(`${path()}/${c.id}`), 404, 'not_found_error', 'resource_not_found');
    const [e] = await log.waitForRequest(res.body.meta.requestId, 1);
    expect(e).toMatchObject({ type: 'customer.deleted', data: { customerId: c.id, customer: { id: c.id, rev: 1 } } });
    expectError(await tp.api.delete(`${path()}/${c.id}`), 404, 'not_found_error', 'resource_not_found');
  });

  it('keys and scope: publishable 403, other team 403, live key 404; the customer stays', async () => {
    const c = await create();
    const one = `${path()}/${c.id}`;
    expectError(await tp.api.delete(one, { key: tp.team.pk_test }), 403, 'authorization_error', 'publishable_key_write');
    expectError(await tp.api.delete(one, { key: tp.otherTeam.sk_test }), 403, 'authorization_error', 'team_access_denied');
    expectError(await tp.api.delete(one, { key: tp.team.sk_live }), 404, 'not_found_error', 'resource_not_found');
    await log.settle();
    expect(log.about(c.id).map((e) => e.type)).toEqual(['customer.created']);
    expectOk(await tp.api.get(one), 200);
  });
});
