/**
 * The ticket facts in micro-batches (docs/adr/0030): what arrives together is one ordered bulk write,
 * with the rule applied one by one (batches of one): the highest revision wins, the earliest public
 * reply is the first response, a deletion forgets the fact. ticket.closed is not consumed.
 */
import type { EventEnvelope } from '@helpdesk/contracts';
import { collectionOf } from '@helpdesk/kit';
import { commandsSent, logger, startServiceHarness, tokens, withCommandMonitoring } from '@helpdesk/testing';
import { startTicketing } from '../src';
import type { FactChange } from '../src/analytics/facts';
import { FakeCustomers } from './fake-customers';
import type { Harness } from './helpers';

let h: Harness;
beforeAll(async () => {
  // The harness of ./helpers, with the driver's command monitoring on (what the connection sends is counted).
  const customers = await new FakeCustomers(tokens, logger).start();
  const started = await startServiceHarness((opts) => startTicketing({ ...opts, mongoUrl: withCommandMonitoring(opts.mongoUrl), customersUrl: customers.url }), { observe: ['ticket.*'] });
  h = { ...started, customers, stop: async () => (await started.stop(), await customers.stop()) };
}, 30_000);
afterAll(() => h?.stop());

/** The commands ticketing's connection sends to `ticket_facts` while `fn` runs (names, in order). */
async function factCommandsOf(fn: () => Promise<unknown>): Promise<string[]> {
  return (await commandsSent(h.svc.conn, fn)).filter((c) => c.endsWith(' ticket_facts')).map((c) => c.split(' ')[0]!);
}

const analytics = () => h.svc.rules.analytics;
const T = '/teams/{team}/tickets';
const facts = (ids: string[]) =>
  h.svc.conn.collection('ticket_facts').find({ _id: { $in: ids } } as any).sort({ _id: 1 }).toArray();
const forget = (ids: string[]) => h.svc.conn.collection('ticket_facts').deleteMany({ _id: { $in: ids } } as any);

/** A change for the facts as the consumers make it from one event. */
function changeOf(e: EventEnvelope<any>): FactChange {
  if (e.type === 'ticket.deleted') return { event: e, forget: e.data.ticketId };
  const m = e.data.message;
  const reply = m && (m.sender === 'agent' || m.sender === 'ai') && !m.isInternal ? { at: m.createdAt } : undefined;
  return { event: e, ticket: e.data.ticket, reply };
}

/** The rule one event at a time, in the given order (a batch of one each). */
async function oneByOne(events: EventEnvelope<any>[]) {
  for (const e of events) await analytics().applyFacts([changeOf(e)]);
}

/** Three tickets' lives through the API (updates, agent and customer replies, a close, a deletion): their ids and events. */
async function someTickets() {
  const ids: string[] = [];
  const since = h.events.length;
  for (let i = 0; i < 3; i++) {
    const t = await h.api('POST', T, { body: { title: `Batch ${i}`, messages: [{ content: 'hello', sender: 'customer' }] } });
    expect(t.status).toBe(201);
    ids.push(t.body.data.id);
  }
  const [a, b, c] = ids as [string, string, string];
  expect((await h.api('PATCH', `${T}/${a}`, { body: { status: 'open', priority: 'high' } })).status).toBe(200);
  expect((await h.api('POST', `${T}/${a}/messages`, { body: { content: 'on it', sender: 'agent' } })).status).toBe(201);
  expect((await h.api('POST', `${T}/${a}/messages`, { body: { content: 'thanks', sender: 'customer' } })).status).toBe(201);
  expect((await h.api('POST', `${T}/${a}/messages`, { body: { content: 'again', sender: 'agent' } })).status).toBe(201);
  expect((await h.api('PATCH', `${T}/${a}`, { body: { status: 'closed' } })).status).toBe(200);
  expect((await h.api('PATCH', `${T}/${b}`, { body: { status: 'pending' } })).status).toBe(200);
  expect((await h.api('POST', `${T}/${b}/messages`, { body: { content: 'a note', sender: 'agent', isInternal: true } })).status).toBe(201);
  expect((await h.api('DELETE', `${T}/${c}`)).status).toBe(200);
  await h.eventsOf('none'); // the outbox drained, the consumers idle
  const events = h.events.slice(since).filter((e) => ids.includes(e.data.ticket?.id ?? e.data.ticketId) && e.type !== 'ticket.assigned' && e.type !== 'ticket.closed');
  return { ids, events };
}

test('a ticket close emits ticket.updated and ticket.closed with the same snapshot; the facts do not consume ticket.closed', async () => {
  const t = await h.api('POST', T, { body: { title: 'Closing' } });
  await h.eventsOf(t.requestId);
  const c = await h.api('PATCH', `${T}/${t.body.data.id}`, { body: { status: 'resolved' } });
  const [updated, closed] = await h.eventsOf(c.requestId);
  expect([updated.type, closed.type]).toEqual(['ticket.updated', 'ticket.closed']);
  expect(closed.data.ticket).toEqual(updated.data.ticket);
  expect(await factCommandsOf(() => h.publish(closed))).toEqual([]);
  expect(await h.svc.conn.collection('ticket_facts').findOne({ _id: t.body.data.id })).toMatchObject({ status: 'resolved', revision: 1 });
});

test('the consumers\' batches leave the facts as the rule one by one does, in any order', async () => {
  const { ids, events } = await someTickets();
  expect(events.map((e) => e.type)).toEqual(expect.arrayContaining(['ticket.created', 'ticket.updated', 'ticket.message_added', 'ticket.deleted']));
  const batched = await facts(ids);
  expect(batched).toHaveLength(2); // the third was deleted
  expect(batched.find((f) => f._id === (ids[0] as unknown))!.firstResponseAt).not.toBeNull();

  await forget(ids);
  await oneByOne(events);
  expect(await facts(ids)).toEqual(batched);

  // One batch in arrival order, then reversed (the deletion first: the snapshots after it bring the deleted ticket back, as one by one).
  for (const order of [events, [...events].reverse()]) {
    await forget(ids);
    await oneByOne(order);
    const expected = await facts(ids);
    await forget(ids);
    await analytics().applyFacts(order.map(changeOf));
    expect(await facts(ids)).toEqual(expected);
  }
  // Submitted together (as the bus hands them over), in reverse: one batch, the same facts.
  await forget(ids);
  await oneByOne([...events].reverse());
  const expected = await facts(ids);
  await forget(ids);
  const before = analytics().facts.stats();
  await Promise.all([...events].reverse().map((e) => analytics().facts.submit(changeOf(e))));
  expect(analytics().facts.stats()).toMatchObject({ batches: before.batches + 1, items: before.items + events.length });
  expect(await facts(ids)).toEqual(expected);
});

test('one bulk write per batch, however many events; an older snapshot over a newer fact costs one more command and changes nothing', async () => {
  const { ids, events } = await someTickets();
  const live = events.filter((e) => e.type !== 'ticket.deleted');
  await forget(ids);
  const cmds = await factCommandsOf(() => Promise.all(live.map((e) => analytics().facts.submit(changeOf(e)))));
  expect(cmds).toEqual(['update']);
  const expected = await facts(ids);

  // Applied again: the same revisions, one command; the facts unchanged.
  expect(await factCommandsOf(() => analytics().applyFacts(live.map(changeOf)))).toEqual(['update']);
  expect(await facts(ids)).toEqual(expected);

  // The created events of the first two tickets (older than their facts) before the third's: each
  // stops the ordered write with a duplicate key and is applied again without the upsert (nothing
  // matches), then the rest follows. (A ticket's older snapshot in the same batch as a newer one is
  // no write of its own: the batch writes the newest of them.)
  const created = live.filter((e) => e.type === 'ticket.created');
  expect(created.map((e) => e.data.ticket.id)).toEqual(ids);
  const cmds2 = await factCommandsOf(() => analytics().applyFacts(created.map(changeOf)));
  expect(cmds2).toEqual(['update', 'update', 'update']);
  expect(await facts(ids)).toEqual(expected);
});

test('a duplicate key from a fact inserted meanwhile by another writer: this newer snapshot is applied over it, and the rest of the batch too', async () => {
  const { ids, events } = await someTickets();
  const [a, b] = ids as [string, string];
  const ofA = events.filter((e) => (e.data.ticket?.id ?? e.data.ticketId) === a);
  const createdA = ofA.find((e) => e.type === 'ticket.created')!;
  const lastOfA = ofA.filter((e) => e.type === 'ticket.updated').at(-1)!;
  const ofB = events.filter((e) => (e.data.ticket?.id ?? e.data.ticketId) === b);
  await forget([a, b]);
  await oneByOne([lastOfA, ...ofB]);
  const expected = await facts([a, b]);
  await forget([a, b]);

  // The race staged (the embedded server runs a command whole): the other writer inserts the older
  // fact, then the batch's upsert fails as MongoDB's would when both inserted.
  const coll = collectionOf(h.svc.conn.models.TicketFact!);
  const spy = jest.spyOn(coll, 'bulkWrite').mockImplementationOnce(async () => {
    // The other writer's batch of one (the spy's second call, the real bulk write).
    await analytics().applyFacts([changeOf(createdA)]);
    throw Object.assign(new Error('E11000 duplicate key error collection: ticket_facts'), { code: 11000, writeErrors: [{ index: 0, code: 11000 }] });
  });
  try {
    await analytics().applyFacts([lastOfA, ...ofB].map(changeOf));
    // The batch's write (failed), the other writer's, then the batch again from the failed upsert on.
    expect(spy).toHaveBeenCalledTimes(3);
  } finally {
    spy.mockRestore();
  }
  expect(await facts([a, b])).toEqual(expected);
});

test('a bad change fails alone: the rest of its batch is applied', async () => {
  const { ids, events } = await someTickets();
  const live = events.filter((e) => e.type !== 'ticket.deleted');
  await oneByOne(live);
  const expected = await facts(ids);
  await forget(ids);
  const bad = { event: live[0]!, ticket: undefined } as unknown as FactChange;
  const before = analytics().facts.stats();
  const settled = await Promise.allSettled([bad, ...live.map(changeOf)].map((c) => analytics().facts.submit(c)));
  expect(settled.map((s) => s.status)).toEqual(['rejected', ...live.map(() => 'fulfilled')]);
  expect(analytics().facts.stats().split).toBe(before.split + 1);
  expect(await facts(ids)).toEqual(expected);
});
