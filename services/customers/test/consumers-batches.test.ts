/**
 * The ticket events' consumer in micro-batches (kit's consumeBatchesOnce): what arrives together is one
 * transaction (one processed_events insert, one bulk of $inc updates, the sentiment of its customer
 * messages), with the results of the events applied one by one.
 */
import type { EventEnvelope } from '@helpdesk/contracts';
import { newId } from '@helpdesk/kit';
import { commandsSent, envelope, messageFixture, startServiceHarness, ticketFixture, withCommandMonitoring } from '@helpdesk/testing';
import { startCustomers } from '../src';
import { ticketConsumers } from '../src/consumers/tickets';
import { TEAM_A, TEAM_B, type Harness } from './helpers';

let h: Harness;
beforeAll(async () => {
  // The harness of ./helpers, with the driver's command monitoring on (what the connection sends is counted).
  h = await startServiceHarness((opts) => startCustomers({ ...opts, mongoUrl: withCommandMonitoring(opts.mongoUrl) }), { observe: ['customer.#'] });
}, 30_000);
afterAll(() => h?.stop());

/** The commands the service's connection sends while `fn` runs (`name collection`), the outbox relay's own left out. */
async function commandsOf(fn: () => Promise<unknown>): Promise<string[]> {
  return (await commandsSent(h.svc.conn, fn)).filter((c) => !/ outbox$|outbox_lease/.test(c) || c.startsWith('insert'));
}

const A = { teamId: TEAM_A };
let n = 0;
const customer = async () => {
  const r = await h.api('POST', '/teams/{team}/customers', { body: { name: `Batch ${++n}`, email: `batch${n}@example.com` } });
  if (r.status !== 201) throw new Error(`customer: ${r.status}`);
  return r.body.data.id as string;
};
const stored = (id: string) => h.svc.conn.collection('customers').findOne({ _id: id as any });
/** What the consumer keeps of a customer. */
const kept = async (id: string) => {
  const c = (await stored(id))!;
  return { ticketCount: c.ticketCount, sentiment: c.sentiment, sentimentCalculated: c.sentimentCalculated, scores: (c.sentimentScores ?? []).map((s: { score: number }) => s.score) };
};
/** A fresh consumer on the service's database (its own micro-batches). */
const consumer = () => ticketConsumers(h.svc.conn, h.svc.rules.customers);
const handle = (c: ReturnType<typeof consumer>, e: EventEnvelope<any>): Promise<void> =>
  ({ 'ticket.created': c.created, 'ticket.updated': c.updated, 'ticket.deleted': c.deleted, 'ticket.message_added': c.messageAdded } as Record<string, (e: any) => Promise<void>>)[e.type]!(e);

/** Events that touch customers `a` and `b` every way (counts up, down, moved away and back, sentiment), and some that do nothing. */
function story(a: string, b: string): EventEnvelope<any>[] {
  // Messages a second apart: their order in the kept scores is their time's.
  const at = (i: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString();
  const t1 = ticketFixture(a);
  const t2 = ticketFixture(a);
  const t3 = ticketFixture(b);
  return [
    envelope('ticket.created', { ticket: t1, messages: [messageFixture(t1.id, 'Thanks, this is great and I love it', { createdAt: at(1) })] }, A),
    envelope('ticket.created', { ticket: t2 }, A),
    envelope('ticket.created', { ticket: t3, messages: [messageFixture(t3.id, 'This is terrible', { createdAt: at(2) }), messageFixture(t3.id, 'agent words', { sender: 'agent', createdAt: at(3) })] }, A),
    envelope('ticket.message_added', { ticket: t1, message: messageFixture(t1.id, 'Awful. I hate this useless product', { createdAt: at(4) }) }, A),
    envelope('ticket.updated', { ticket: { ...t2, customerId: b }, changes: ['customerId'], previous: { customerId: a } }, A),
    envelope('ticket.updated', { ticket: { ...t2, title: 'x' }, changes: ['title'], previous: { title: t2.title } }, A),
    envelope('ticket.message_added', { ticket: t3, message: messageFixture(t3.id, 'wonderful, superb', { isInternal: true, createdAt: at(5) }) }, A),
    envelope('ticket.updated', { ticket: { ...t2, customerId: a }, changes: ['customerId'], previous: { customerId: b } }, A),
    envelope('ticket.deleted', { ticketId: t1.id, customerId: a, ticket: t1 }, A),
    envelope('ticket.message_added', { ticket: t3, message: messageFixture(t3.id, 'ok, great, thank you', { createdAt: at(6) }) }, A),
    envelope('ticket.created', { ticket: ticketFixture(b) }, { teamId: TEAM_B }),
  ];
}

test('a batch leaves the customers as the events one by one do', async () => {
  const [a1, b1, a2, b2] = [await customer(), await customer(), await customer(), await customer()];
  const one = consumer();
  for (const e of story(a1, b1)) await handle(one, e);
  expect(one.stats()).toMatchObject({ largest: 1 });

  const batched = consumer();
  const events = story(a2, b2);
  await Promise.all(events.map((e) => handle(batched, e)));
  // Every event that concerns a customer (not the title change, the internal message, the other team's … which is counted: its customer is not there).
  expect(batched.stats()).toMatchObject({ batches: 1, items: 9, split: 0 });
  expect([await kept(a2), await kept(b2)]).toEqual([await kept(a1), await kept(b1)]);
  expect(await kept(a2)).toMatchObject({ ticketCount: 1, sentiment: 'negative', scores: [1, expect.any(Number)] });
  expect(await kept(b2)).toMatchObject({ ticketCount: 1, scores: [-1, expect.any(Number)] });
  expect(await h.svc.conn.collection('processed_events').countDocuments({ _id: { $in: events.map((e) => `customers:${e.id}`) } } as any)).toBe(9);
});

test('a batch is one transaction: one processed_events insert, one bulk of $inc updates, one commit', async () => {
  const ids = [await customer(), await customer(), await customer()];
  const events = Array.from({ length: 12 }, (_, i) => envelope('ticket.created', { ticket: ticketFixture(ids[i % 3]!) }, A));
  const c = consumer();
  const cmds = await commandsOf(() => Promise.all(events.map((e) => handle(c, e))));
  expect(c.stats()).toMatchObject({ batches: 1, items: 12 });
  expect(cmds).toEqual(['insert processed_events', 'update customers', 'commitTransaction']);
  for (const id of ids) expect((await stored(id))!.ticketCount).toBe(4);
  // Through the bus as well (the service's own consumer): the counts add up.
  const more = Array.from({ length: 30 }, (_, i) => envelope('ticket.created', { ticket: ticketFixture(ids[i % 3]!) }, A));
  const viaBus = await commandsOf(() => h.publish(...more));
  expect(viaBus.filter((x) => x === 'commitTransaction').length).toBeLessThan(10);
  for (const id of ids) expect((await stored(id))!.ticketCount).toBe(14);
});

test('a redelivery in a batch counts once: the same id twice, and an id applied before', async () => {
  const id = await customer();
  const first = envelope('ticket.created', { ticket: ticketFixture(id) }, A);
  const c = consumer();
  await handle(c, first);
  const again = envelope('ticket.created', { ticket: ticketFixture(id) }, { ...A, id: newId('event') });
  const fresh = envelope('ticket.created', { ticket: ticketFixture(id) }, A);
  const before = c.stats();
  await Promise.all([again, first, fresh, again].map((e) => handle(c, e)));
  // The batch failed on `first` (processed before) and was applied again one event at a time.
  expect(c.stats().split).toBe(before.split + 1);
  expect((await stored(id))!.ticketCount).toBe(3);
  // The same id twice in one batch, none applied before: once.
  const twice = envelope('ticket.created', { ticket: ticketFixture(id) }, A);
  const s = c.stats();
  await Promise.all([twice, twice, envelope('ticket.created', { ticket: ticketFixture(id) }, A)].map((e) => handle(c, e)));
  expect(c.stats()).toMatchObject({ batches: s.batches + 1, split: s.split });
  expect((await stored(id))!.ticketCount).toBe(5);
});

test('a bad event fails alone: the rest of its batch is applied, none of its own writes is', async () => {
  const [good, bad] = [await customer(), await customer()];
  const rules = h.svc.rules.customers;
  const real = rules.addMessages;
  const spy = jest.spyOn(rules, 'addMessages').mockImplementation((scope, customerId, ...rest) => {
    if (customerId === bad) return Promise.reject(new Error('boom'));
    return real.call(rules, scope, customerId, ...rest);
  });
  try {
    const tb = ticketFixture(bad);
    const events = [
      envelope('ticket.created', { ticket: ticketFixture(good) }, A),
      envelope('ticket.created', { ticket: tb, messages: [messageFixture(tb.id, 'great')] }, A),
      envelope('ticket.created', { ticket: ticketFixture(bad) }, A),
      envelope('ticket.created', { ticket: ticketFixture(good), messages: [messageFixture(tb.id, 'great, thanks')] }, A),
    ];
    const c = consumer();
    const settled = await Promise.allSettled(events.map((e) => handle(c, e)));
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    expect(c.stats()).toMatchObject({ split: 1 });
    expect((await stored(good))!).toMatchObject({ ticketCount: 2, sentiment: 'positive' });
    expect((await stored(bad))!.ticketCount).toBe(1);
    const processed = await h.svc.conn.collection('processed_events').find({ _id: { $in: events.map((e) => `customers:${e.id}`) } } as any).toArray();
    expect(processed.map((p) => p._id).sort()).toEqual([events[0]!, events[2]!, events[3]!].map((e) => `customers:${e.id}`).sort());
  } finally {
    spy.mockRestore();
  }
});
