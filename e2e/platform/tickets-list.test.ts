import { startTestPlatform, type TestPlatform } from '../support/platform';
import { TICKET_KEYS, createCustomer, expectError, expectOk } from './helpdesk-helpers';

let tp: TestPlatform;
const path = () => `${tp.teamPath}/tickets`;
const ids: Record<string, string> = {};
let alice: any;
let bob: any;

beforeAll(async () => {
  tp = await startTestPlatform();
  const make = async (name: string, body: Record<string, unknown>) => {
    ids[name] = expectOk(await tp.api.post(path(), { title: name, ...body }), 201).id;
  };
  alice = await createCustomer(tp, 'Alice Wonder', 'alice@example.com');
  bob = await createCustomer(tp, 'Bob Builder', 'bob@example.com');
  // created in this order: list is newest first
  await make('Alpha login broken', { priority: 'high', customerId: alice.id, messages: [{ sender: 'customer', content: 'cannot log in' }] });
  await make('Beta invoice', { priority: 'low', customerId: bob.id, messages: [{ sender: 'customer', content: 'Refund Please (asap)' }] });
  await make('Gamma crash', { customerName: 'Carol Quux' });
  await make('Delta question', { priority: 'high', customerId: alice.id });
  expectOk(await tp.api.patch(`${path()}/${ids['Gamma crash']}`, { status: 'resolved' }), 200);
  // assignment is not settable over the API yet (ADR 0004): set it on the stored document
  await tp.platform.ticketing.conn.db!.collection('tickets').updateOne({ _id: ids['Delta question'] } as any, { $set: { assignedTo: 'mem_agent0001' } });
}, 60_000);
afterAll(async () => tp?.stop(), 60_000);

const titles = (data: any[]) => data.map((t) => t.title);

describe('GET /tickets', () => {
  it('lists newest first with pagination in meta.pagination and no messages', async () => {
    const res = await tp.api.get(path());
    const data = expectOk(res, 200);
    expect(titles(data)).toEqual(['Delta question', 'Gamma crash', 'Beta invoice', 'Alpha login broken']);
    expect(res.body.meta.pagination).toMatchObject({ page: 1, pageSize: 20, total: 4, totalPages: 1 });
    for (const t of data) expect(Object.keys(t).sort()).toEqual(TICKET_KEYS);
  });

  it('paginates with page and pageSize', async () => {
    const p1 = await tp.api.get(path(), { query: { pageSize: 3 } });
    expect(titles(expectOk(p1, 200))).toEqual(['Delta question', 'Gamma crash', 'Beta invoice']);
    expect(p1.body.meta.pagination).toMatchObject({ page: 1, pageSize: 3, total: 4, totalPages: 2 });
    const p2 = await tp.api.get(path(), { query: { pageSize: 3, page: 2 } });
    expect(titles(expectOk(p2, 200))).toEqual(['Alpha login broken']);
    expect(p2.body.meta.pagination).toMatchObject({ page: 2, pageSize: 3, total: 4, totalPages: 2 });
    const p3 = await tp.api.get(path(), { query: { pageSize: 3, page: 3 } });
    expect(expectOk(p3, 200)).toEqual([]);
    expect(expectOk(await tp.api.get(path(), { query: { pageSize: 100 } }), 200)).toHaveLength(4);
  });

  it.each([
    [{ status: 'resolved' }, ['Gamma crash']],
    [{ status: 'new' }, ['Delta question', 'Beta invoice', 'Alpha login broken']],
    [{ status: 'merged' }, []],
    [{ priority: 'high' }, ['Delta question', 'Alpha login broken']],
    [{ priority: 'normal' }, ['Gamma crash']],
    [{ customerId: 'ALICE' }, ['Delta question', 'Alpha login broken']],
    [{ assignedTo: 'mem_agent0001' }, ['Delta question']],
    [{ priority: 'high', customerId: 'ALICE', assignedTo: 'mem_agent0001' }, ['Delta question']],
    [{ search: 'INVOICE' }, ['Beta invoice']],
    [{ search: 'alice wond' }, ['Delta question', 'Alpha login broken']],
    [{ search: 'bob builder' }, ['Beta invoice']],
    [{ search: 'carol' }, ['Gamma crash']],
    [{ search: 'log in' }, ['Alpha login broken']],
    [{ search: 'please (asap)' }, ['Beta invoice']],
    [{ search: '.*' }, []],
    [{ search: '' }, ['Delta question', 'Gamma crash', 'Beta invoice', 'Alpha login broken']],
  ] as [Record<string, string>, string[]][])('filters %j', async (given, expected) => {
    // ALICE stands for the customer made in beforeAll (the table is built before it exists)
    const query = Object.fromEntries(Object.entries(given).map(([k, v]) => [k, v === 'ALICE' ? alice.id : v]));
    const res = await tp.api.get(path(), { query });
    expect(titles(expectOk(res, 200))).toEqual(expected);
    expect(res.body.meta.pagination.total).toBe(expected.length);
  });

  it('search finds content of a message added later', async () => {
    const t = expectOk(await tp.api.post(path(), { title: 'Later' }), 201);
    expectOk(await tp.api.post(`${path()}/${t.id}/messages`, { content: 'xylophone tuning' }), 201);
    expect(titles(expectOk(await tp.api.get(path(), { query: { search: 'xylophone' } }), 200))).toEqual(['Later']);
    expectOk(await tp.api.delete(`${path()}/${t.id}`), 200);
  });

  it('expand[]=messages embeds the thread oldest first; expand[]=customer embeds the customer', async () => {
    const res = await tp.api.get(path(), { query: { 'expand[]': ['messages', 'customer'], customerId: alice.id } });
    const data = expectOk(res, 200);
    expect(titles(data)).toEqual(['Delta question', 'Alpha login broken']);
    expect(data[1].messages.map((m: any) => [m.sender, m.content])).toEqual([['customer', 'cannot log in']]);
    expect(data[0].messages).toEqual([]);
    const summary = { status: 'active', sentiment: 'neutral', tags: [] };
    expect(data[1].customer).toEqual({ id: alice.id, name: 'Alice Wonder', email: 'alice@example.com', ...summary });
    expect(data[0].customer).toEqual(data[1].customer);
    const only = expectOk(await tp.api.get(path(), { query: { 'expand[]': 'customer', search: 'carol' } }), 200);
    expect(only[0].messages).toBeUndefined();
    expect(only[0].customer).toEqual({ id: expect.stringMatching(/^cus_/), name: 'Carol Quux', email: null, ...summary });
    const none = expectOk(await tp.api.post(path(), { title: 'Nobody' }), 201);
    const listed = expectOk(await tp.api.get(path(), { query: { 'expand[]': 'customer', search: 'nobody' } }), 200);
    expect(listed.map((t: any) => [t.id, t.customer])).toEqual([[none.id, null]]);
    expectOk(await tp.api.delete(`${path()}/${none.id}`), 200);
  });

  it.each([
    [{ status: 'done' }, 'status'],
    [{ priority: 'p0' }, 'priority'],
    [{ customerId: 'alice' }, 'customerId'],
    [{ pageSize: '101' }, 'pageSize'],
    [{ pageSize: '0' }, 'pageSize'],
    [{ page: '0' }, 'page'],
    [{ page: 'abc' }, 'page'],
    [{ 'expand[]': 'owner' }, 'expand[].0'],
    [{ search: 's'.repeat(201) }, 'search'],
    [{ sort: 'title' }, 'sort'],
  ] as [Record<string, string>, string][])('refuses %j with 400 parameter_invalid', async (query, param) => {
    expectError(await tp.api.get(path(), { query }), 400, 'invalid_request_error', 'parameter_invalid', param);
  });
});

describe('GET /tickets/{id}', () => {
  it('returns the ticket with its messages', async () => {
    const t = expectOk(await tp.api.get(`${path()}/${ids['Alpha login broken']}`), 200);
    expect(Object.keys(t).sort()).toEqual([...TICKET_KEYS, 'messages'].sort());
    expect(t).toMatchObject({ title: 'Alpha login broken', priority: 'high', customerId: alice.id, messageCount: 1 });
    expect(t.messages.map((m: any) => m.content)).toEqual(['cannot log in']);
  });

  it('404 for an unknown well-formed id, 400 for an unknown query parameter', async () => {
    expectError(await tp.api.get(`${path()}/tkt_${'Z'.repeat(24)}`), 404, 'not_found_error', 'resource_not_found', undefined);
    expectError(await tp.api.get(`${path()}/${ids['Gamma crash']}`, { query: { foo: '1' } }), 400, 'invalid_request_error', 'parameter_invalid', 'foo');
  });
});
