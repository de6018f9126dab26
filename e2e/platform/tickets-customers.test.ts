/**
 * Tickets and customers together, through the gateway (issue 4, item 3): ticketing asks the
 * customers service at create/move time and keeps a projection of `customer.*` events for search
 * and expand. Effects that travel by events are awaited by polling, never by fixed sleeps.
 */
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { EventLog, createCustomer, eventually, expectError, expectOk, settle } from './helpdesk-helpers';

let tp: TestPlatform;
let log: EventLog;
const tickets = () => `${tp.teamPath}/tickets`;
const customers = () => `${tp.teamPath}/customers`;
let n = 0;
const email = (who: string) => `${who}-${Date.now()}-${++n}@example.com`;

beforeAll(async () => {
  tp = await startTestPlatform();
  log = await EventLog.start(tp);
}, 60_000);
afterAll(async () => tp?.stop(), 60_000);

const titlesFor = async (query: Record<string, string>) => expectOk(await tp.api.get(tickets(), { query: { pageSize: 100, ...query } }), 200).map((t: any) => t.title);
const ticketCountOf = async (id: string) => expectOk(await tp.api.get(`${customers()}/${id}`), 200).ticketCount;

describe('ticket create names its customer', () => {
  it('customerId links an existing customer of the same team and partition; its ticketCount follows', async () => {
    const c = await createCustomer(tp, 'Linus Link', email('linus'));
    const t = expectOk(await tp.api.post(tickets(), { title: 'Linked', customerId: c.id }), 201);
    expect(t.customerId).toBe(c.id);
    await eventually('ticketCount is 1', async () => (await ticketCountOf(c.id)) === 1);
  });

  it.each([
    ['a customer id nobody has', async () => 'cus_' + 'N'.repeat(24)],
    ["another team's customer", async () => (await createCustomer(tp, 'Theirs', email('theirs'), tp.otherTeam.sk_test, `/teams/${tp.otherTeam.teamId}`)).id],
    ["the live partition's customer", async () => (await createCustomer(tp, 'Live', email('live'), tp.team.sk_live)).id],
  ])('404 resource_not_found for %s, writing and emitting nothing', async (_name, make) => {
    const customerId = await make();
    await settle(tp, log);
    const before = log.events.length;
    const res = await tp.api.post(tickets(), { title: 'Orphan', customerId });
    expectError(res, 404, 'not_found_error', 'resource_not_found', undefined);
    await settle(tp, log);
    expect(log.events.slice(before).map((e) => e.data.ticket?.title)).toEqual(['marker']);
    expect(await titlesFor({ search: 'orphan' })).toEqual([]);
  });

  it('customerEmail (any case) links the customer who has it; none has it: 422 customer_not_found', async () => {
    const address = email('erin');
    const c = await createCustomer(tp, 'Erin Email', address);
    const t = expectOk(await tp.api.post(tickets(), { title: 'By email', customerEmail: address.toUpperCase() }), 201);
    expect(t.customerId).toBe(c.id);
    await settle(tp, log);
    const res = await tp.api.post(tickets(), { title: 'Unknown email', customerEmail: email('nobody'), customerName: 'Nobody' });
    expectError(res, 422, 'validation_error', 'customer_not_found', 'customerEmail');
    await settle(tp, log);
    expect(log.events.filter((e) => e.requestId === res.body.error.request_id)).toEqual([]);
    expect(await titlesFor({ search: 'unknown email' })).toEqual([]);
  });

  it('customerName alone creates the customer, which the customers API then lists', async () => {
    const t = expectOk(await tp.api.post(tickets(), { title: 'Walk-in', customerName: 'Wanda Walkin' }), 201);
    const c = expectOk(await tp.api.get(`${customers()}/${t.customerId}`), 200);
    expect(c).toMatchObject({ id: t.customerId, name: 'Wanda Walkin', email: null, status: 'active' });
    await eventually('ticketCount is 1', async () => (await ticketCountOf(c.id)) === 1);
    expect(expectOk(await tp.api.get(customers(), { query: { search: 'wanda' } }), 200).map((x: any) => x.id)).toEqual([c.id]);
  });
});

describe('the projection: search and expand', () => {
  it('expand[]=customer embeds the customer, and a renamed customer is found by the next ticket search', async () => {
    const c = await createCustomer(tp, 'Rita Rename', email('rita'));
    const t = expectOk(await tp.api.post(tickets(), { title: 'Projection check', customerId: c.id }), 201);
    expect(await titlesFor({ search: 'rita rename' })).toEqual(['Projection check']);
    expectOk(await tp.api.patch(`${customers()}/${c.id}`, { name: 'Rhoda Renamed' }), 200);
    await eventually('the new name is searchable', async () => (await titlesFor({ search: 'rhoda renamed' })).length === 1);
    expect(await titlesFor({ search: 'rita rename' })).toEqual([]);
    const listed = expectOk(await tp.api.get(tickets(), { query: { 'expand[]': 'customer', customerId: c.id } }), 200);
    expect(listed.map((x: any) => [x.id, x.customer.name])).toEqual([[t.id, 'Rhoda Renamed']]);
  });

  it('a ticket moved to another customer moves its ticketCount', async () => {
    const a = await createCustomer(tp, 'Mover A', email('a'));
    const b = await createCustomer(tp, 'Mover B', email('b'));
    const t = expectOk(await tp.api.post(tickets(), { title: 'Moving', customerId: a.id }), 201);
    await eventually('A has it', async () => (await ticketCountOf(a.id)) === 1);
    expectOk(await tp.api.patch(`${tickets()}/${t.id}`, { customerId: b.id }), 200);
    await eventually('B has it, A not', async () => (await ticketCountOf(b.id)) === 1 && (await ticketCountOf(a.id)) === 0);
    expectError(await tp.api.patch(`${tickets()}/${t.id}`, { customerId: 'cus_' + 'M'.repeat(24) }), 404, 'not_found_error', 'resource_not_found', undefined);
    expectOk(await tp.api.delete(`${tickets()}/${t.id}`), 200);
    await eventually('B has none', async () => (await ticketCountOf(b.id)) === 0);
  });
});

describe('DELETE /customers/{id}', () => {
  it("keeps the customer's tickets and unlinks them (ticket.updated each); other customers' tickets are untouched", async () => {
    const c = await createCustomer(tp, 'Dana Deleted', email('dana'));
    const keep = await createCustomer(tp, 'Kim Kept', email('kim'));
    const mine: string[] = [];
    for (let i = 0; i < 3; i++) mine.push(expectOk(await tp.api.post(tickets(), { title: `Dana ${i}`, customerId: c.id }), 201).id);
    const other = expectOk(await tp.api.post(tickets(), { title: 'Kim ticket', customerId: keep.id }), 201).id;
    const res = await tp.api.delete(`${customers()}/${c.id}`);
    expect(expectOk(res, 200)).toMatchObject({ id: c.id, deleted: true });
    await eventually('the tickets are unlinked', async () => (await titlesFor({ customerId: c.id })).length === 0);
    for (const id of mine) expect(expectOk(await tp.api.get(`${tickets()}/${id}`), 200).customerId).toBeNull();
    expect(expectOk(await tp.api.get(`${tickets()}/${other}`), 200).customerId).toBe(keep.id);
    await eventually('three ticket.updated events', async () => mine.every((id) => log.forTicket(id).some((e) => e.type === 'ticket.updated')));
    for (const id of mine) {
      const update = log.forTicket(id).find((e) => e.type === 'ticket.updated')!;
      expect(update).toMatchObject({ requestId: res.body.meta.requestId, data: { changes: ['customerId'], previous: { customerId: c.id }, ticket: { customerId: null } } });
    }
    expect(await titlesFor({ search: 'dana deleted' })).toEqual([]);
    expectError(await tp.api.post(tickets(), { title: 'Too late', customerId: c.id }), 404, 'not_found_error', 'resource_not_found', undefined);
  });
});
