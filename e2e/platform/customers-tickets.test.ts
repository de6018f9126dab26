import { startTestPlatform, type TestPlatform } from '../support/platform';
import { expectOk } from './helpdesk-helpers';
import { CUS_ID, CustomerEvents, eventually } from './customers-helpers';

/** Customers and tickets together: ticketCount and sentiment follow ticket events; deletion reaches ticketing. */
let tp: TestPlatform;
let log: CustomerEvents;
const customers = () => `${tp.teamPath}/customers`;
const tickets = () => `${tp.teamPath}/tickets`;
let n = 0;

beforeAll(async () => {
  tp = await startTestPlatform();
  log = await CustomerEvents.start(tp);
}, 60_000);
afterAll(async () => {
  await tp?.stop();
}, 60_000);

const customer = async (name = `Customer ${++n}`) => expectOk(await tp.api.post(customers(), { name, email: `tk${++n}.${Date.now()}@example.com` }), 201);
const read = async (id: string) => expectOk(await tp.api.get(`${customers()}/${id}`), 200);
const ticket = async (body: Record<string, unknown>) => expectOk(await tp.api.post(tickets(), { title: 'Help', ...body }), 201);
const countIs = (id: string, want: number) => eventually(`${id} has ticketCount ${want}`, async () => (await read(id)).ticketCount === want);
const sentimentIs = (id: string, want: string) => eventually(`${id} is ${want}`, async () => (await read(id)).sentiment === want);

describe('ticketCount follows the tickets', () => {
  it('counts tickets created with customerId or customerEmail, moved, and deleted', async () => {
    const a = await customer();
    const b = await customer();
    const t1 = await ticket({ customerId: a.id });
    expect(t1.customerId).toBe(a.id);
    await countIs(a.id, 1);
    const t2 = await ticket({ customerEmail: a.email.toUpperCase() });
    expect(t2.customerId).toBe(a.id);
    await countIs(a.id, 2);

    expectOk(await tp.api.delete(`${tickets()}/${t1.id}`), 200);
    await countIs(a.id, 1);
    expectOk(await tp.api.patch(`${tickets()}/${t2.id}`, { customerId: b.id }), 200);
    await countIs(b.id, 1);
    await countIs(a.id, 0);
    expectOk(await tp.api.delete(`${tickets()}/${t2.id}`), 200);
    await countIs(b.id, 0);

    // a derived counter: no customer event for any of it
    await log.settle();
    expect(log.about(a.id).map((e) => e.type)).toEqual(['customer.created']);
    expect(log.about(b.id).map((e) => e.type)).toEqual(['customer.created']);
    expect((await read(a.id)).updatedAt).toBe(a.updatedAt);
  });

  it('a ticket naming only customerName creates a customer with email null, counted', async () => {
    const t = await ticket({ customerName: 'Walk-in Wanda' });
    expect(t.customerId).toMatch(CUS_ID);
    const c = await read(t.customerId);
    expect(c).toMatchObject({ name: 'Walk-in Wanda', email: null, status: 'active', sentiment: 'neutral' });
    await countIs(c.id, 1);
    const [e] = await log.waitFor((x) => x.type === 'customer.created' && x.data.customer.id === c.id, 1, 'implicit customer.created');
    expect(e.data.customer).toMatchObject({ email: null, name: 'Walk-in Wanda' });
  });

  it('another partition\'s tickets never count for this customer', async () => {
    const c = await customer();
    const live = expectOk(await tp.api.post(customers(), { name: 'Live', email: c.email }, { key: tp.team.sk_live }), 201);
    expectOk(await tp.api.post(tickets(), { title: 'live', customerId: live.id }, { key: tp.team.sk_live }), 201);
    await eventually('live customer counted', async () => expectOk(await tp.api.get(`${customers()}/${live.id}`, { key: tp.team.sk_live }), 200).ticketCount === 1);
    expect((await read(c.id)).ticketCount).toBe(0);
  });
});

describe('sentiment from the customer\'s own public messages', () => {
  it('moves with customer messages, emits customer.updated [sentiment]; agent messages and internal notes do not count', async () => {
    const c = await customer();
    const t = await ticket({ customerId: c.id, messages: [{ sender: 'customer', content: 'Thank you, this is great and I love it' }] });
    await sentimentIs(c.id, 'positive');
    const [e] = await log.waitFor((x) => x.type === 'customer.updated' && x.data.customer.id === c.id, 1, 'sentiment update');
    expect(e.data).toMatchObject({ changes: ['sentiment'], previous: { sentiment: 'neutral' }, customer: { sentiment: 'positive' } });
    expect(e.actor).toEqual({ type: 'system', id: null });

    const post = (body: Record<string, unknown>) => tp.api.post(`${tickets()}/${t.id}/messages`, body);
    expectOk(await post({ sender: 'agent', content: 'Terrible awful horrible news' }), 201);
    expectOk(await post({ sender: 'customer', content: 'terrible awful hate', messageType: 'internal' }), 201);
    expectOk(await post({ sender: 'customer', content: 'This is terrible. I hate this useless product' }), 201);
    await sentimentIs(c.id, 'negative');
    await log.settle();
    // the agent message and the internal note changed nothing: one update to positive, one to negative
    expect(log.about(c.id).filter((x) => x.type === 'customer.updated').map((x) => x.data.customer.sentiment)).toEqual(['positive', 'negative']);
  });

  it('a PATCH override holds against later messages until it is cleared', async () => {
    const c = await customer();
    const t = await ticket({ customerId: c.id });
    expectOk(await tp.api.patch(`${customers()}/${c.id}`, { sentiment: 'positive' }), 200);
    const msg = expectOk(await tp.api.post(`${tickets()}/${t.id}/messages`, { sender: 'customer', content: 'Awful, broken, I hate it' }), 201);
    // the message is counted (its scores are kept) but the shown value stays pinned
    await log.settle();
    await eventually('the message is scored', async () => {
      const raw = await tp.platform.customers.conn.collection('customers').findOne({ _id: c.id } as any);
      return raw?.sentimentScores?.some((s: any) => s.messageId === msg.id);
    });
    expect((await read(c.id)).sentiment).toBe('positive');
    expect(expectOk(await tp.api.patch(`${customers()}/${c.id}`, { sentiment: null }), 200).sentiment).toBe('negative');
  });
});

describe('deleting a customer', () => {
  it('removes its memberships (member_removed, customerCount down) and ticketing unlinks its tickets', async () => {
    const c = await customer();
    const t = await ticket({ customerId: c.id });
    const group = (await tp.api.post(`${tp.teamPath}/customer-groups`, { name: `Deleted members ${n}` })).body;
    expect((await tp.api.post(`${tp.teamPath}/customer-groups/${group.id}/members`, { customerId: c.id })).body).toEqual({ added: 1, total: 1, skipped: 0 });

    const res = await tp.api.delete(`${customers()}/${c.id}`);
    expectOk(res, 200);
    const events = await log.waitForRequest(res.body.meta.requestId, 2);
    expect(events.map((e) => e.type)).toEqual(['customer_group.member_removed', 'customer.deleted']);
    expect(events[0].data).toMatchObject({ reason: 'customer_deleted', member: { id: c.id }, group: { id: group.id, customerCount: 0 } });
    expect((await tp.api.get(`${tp.teamPath}/customer-groups/${group.id}`)).body.customerCount).toBe(0);
    expect((await tp.api.get(`${tp.teamPath}/customer-groups/${group.id}/members`)).body.data).toEqual([]);

    await eventually('the ticket is unlinked', async () => expectOk(await tp.api.get(`${tickets()}/${t.id}`), 200).customerId === null);
  });
});
