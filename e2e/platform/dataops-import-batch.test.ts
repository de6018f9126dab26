/**
 * POST /import written in batches (docs/adr/0037): the owning services write a chunk of rows in one
 * transaction, and still emit exactly the events of the same records created one by one.
 */
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { CustomerEvents } from './customers-helpers';
import { createCustomer, EventLog, expectOk, settle } from './helpdesk-helpers';

let tp: TestPlatform;
let tickets: EventLog;
let customers: CustomerEvents;

beforeAll(async () => {
  tp = await startTestPlatform();
  tickets = await EventLog.start(tp);
  customers = await CustomerEvents.start(tp);
}, 60_000);
afterAll(async () => {
  await tp?.stop();
}, 60_000);

describe('POST /import: batch writes', () => {
  it('one ticket.created per created row and one customer.created per new requester, over more than one chunk; a refused row fails alone', async () => {
    const known = await createCustomer(tp, 'Batch Known', 'batch.known@example.com');
    const ROWS = 70; // more than one chunk of 50 (IMPORT_CHUNK)
    const records: Record<string, unknown>[] = Array.from({ length: ROWS }, (_, i) => ({
      title: `Batch ticket ${i}`,
      description: `Message ${i}`,
      customer_email: `batch-${i}@example.com`,
      customer_name: `Batch ${i}`,
      tags: [`b${i % 3}`],
    }));
    records[5] = { ...records[5], customer_email: 'batch.known@example.com' }; // an existing requester
    records[7] = { ...records[7], customer_email: 'batch-6@example.com' }; // a requester shared with row 7
    records[9] = { ...records[9], priority: 'bogus' }; // a row error
    const res = await tp.api.post(`${tp.teamPath}/import`, { resource: 'tickets', records });
    const out = expectOk(res, 201);
    expect(out).toMatchObject({ total: ROWS, created: ROWS - 1, failed: 1, success: false });
    expect(out.errors).toEqual([{ rowIndex: 9, code: 'parameter_invalid', message: expect.stringMatching(/^Row 10: .*priority/) }]);
    const ids: string[] = out.createdIds.map((c: { id: string }) => c.id);
    expect(new Set(ids).size).toBe(ROWS - 1);

    // Every event of the request is in once a later write's event is.
    await settle(tp, tickets);
    await customers.settle();
    const ticketEvents = tickets.events.filter((e) => ids.includes(e.data.ticket?.id ?? e.data.ticketId));
    expect(ticketEvents.map((e) => e.type)).toEqual(ids.map(() => 'ticket.created'));
    expect(ticketEvents.map((e) => e.data.ticket.id).sort()).toEqual([...ids].sort());
    const byId = new Map(ticketEvents.map((e) => [e.data.ticket.id, e.data]));
    const first = byId.get(ids[0])!;
    expect(first.ticket).toMatchObject({ title: 'Batch ticket 0', channel: 'import', customerId: expect.stringMatching(/^cus_/) });
    expect(first.messages.map((m: any) => [m.sender, m.content])).toEqual([['customer', 'Message 0']]);
    expect(byId.get(out.createdIds.find((c: any) => c.rowIndex === 5).id)!.ticket.customerId).toBe(known.id);

    // New requesters: every row's email but the known one, row 7's (shared with row 6) and row 9's (refused before any requester).
    const newEmails = records.map((r) => r.customer_email as string).filter((e, i) => i !== 5 && i !== 7 && i !== 9);
    const emails = new Set(records.map((r) => r.customer_email as string));
    // The known customer's own creation (before the import) aside.
    const created = customers.events.filter((e) => emails.has(e.data.customer?.email) && e.data.customer.id !== known.id);
    expect(created.map((e) => e.type)).toEqual(newEmails.map(() => 'customer.created'));
    expect(created.map((e) => e.data.customer.email).sort()).toEqual([...newEmails].sort());

    // Stored as one by one would: row 6 and row 7 share one customer.
    const row = async (i: number) => expectOk(await tp.api.get(`${tp.teamPath}/tickets/${out.createdIds.find((c: any) => c.rowIndex === i).id}`), 200);
    const [six, seven] = await Promise.all([row(6), row(7)]);
    expect(seven.customerId).toBe(six.customerId);
    expect(seven).toMatchObject({ status: 'new', channel: 'import', messageCount: 1, tags: ['b1'] });
  }, 120_000);

  it('a request whose rows pass the owning service 1 MB (the services\' default body limit) is imported whole', async () => {
    // 40 rows of 30,000 characters: 1.2 MB handed on to ticketing, each row with its requester's snapshot.
    const records = Array.from({ length: 40 }, (_, i) => ({ title: `Large ticket ${i}`, description: `${i} `.padEnd(30_000, 'x'), customer_email: `large-${i}@example.com` }));
    const out = expectOk(await tp.api.post(`${tp.teamPath}/import`, { resource: 'tickets', records }), 201);
    expect(out).toMatchObject({ total: 40, created: 40, failed: 0, success: true });
    const t = expectOk(await tp.api.get(`${tp.teamPath}/tickets/${out.createdIds[39].id}`), 200);
    expect(t.messages[0].content).toHaveLength(30_000);
  }, 120_000);

  it('customers: one customer.created per created row; two rows with one email meet each other (the second skipped)', async () => {
    const records = [
      { name: 'Cust A', email: 'batch.cust.a@example.com' },
      { name: 'Cust B', email: 'batch.cust.b@example.com' },
      { name: 'Cust A again', email: 'BATCH.cust.a@example.com' },
      { name: 'No email' },
    ];
    const res = await tp.api.post(`${tp.teamPath}/import`, { resource: 'customers', records });
    const out = expectOk(res, 201);
    expect(out).toMatchObject({ created: 2, skipped: 1, failed: 1 });
    await customers.settle();
    const created = customers.events.filter((e) => /^batch\.cust\./i.test(e.data.customer?.email ?? ''));
    expect(created.map((e) => [e.type, e.data.customer.email])).toEqual([
      ['customer.created', 'batch.cust.a@example.com'],
      ['customer.created', 'batch.cust.b@example.com'],
    ]);
  });
});
