/**
 * The ticket facts analytics counts (docs/adr/0030) are kept from ticket events that a real broker
 * hands to concurrent handlers: the newest revision wins whatever the order, even when two writes
 * share an updatedAt (a controlled clock, or one millisecond).
 */
import { collectionOf } from '@helpdesk/kit';
import { useHarness, type Harness } from './helpers';

let h: Harness;
useHarness((started) => (h = started));

/** The `ticket.created` and the `ticket.updated` (to pending) of one new ticket, written at the same instant. */
async function createdThenPending() {
  h.svc.rules.clock.now = () => new Date('2026-04-01T12:00:00Z');
  const t = await h.api('POST', '/teams/{team}/tickets', { body: { title: 'Same instant' } });
  expect(t.status).toBe(201);
  const p = await h.api('PATCH', `/teams/{team}/tickets/${t.body.data.id}`, { body: { status: 'pending' } });
  expect(p.status).toBe(200);
  const [created] = await h.eventsOf(t.requestId);
  const [updated] = await h.eventsOf(p.requestId);
  expect([created.type, updated.type]).toEqual(['ticket.created', 'ticket.updated']);
  expect(created.data.ticket.updatedAt).toBe(updated.data.ticket.updatedAt);
  expect([created.data.ticket.revision, updated.data.ticket.revision]).toEqual([0, 1]);
  return { id: t.body.data.id as string, created, updated };
}

const factOf = (id: string) => h.svc.conn.collection('ticket_facts').findOne({ _id: id as any });
const forget = (id: string) => h.svc.conn.collection('ticket_facts').deleteOne({ _id: id as any });

test('the public ticket does not carry the revision; its events do', async () => {
  const { id } = await createdThenPending();
  const got = await h.api('GET', `/teams/{team}/tickets/${id}`);
  expect(got.body.data).not.toHaveProperty('revision');
});

test('the created event applied after the update does not undo it', async () => {
  const { id, created, updated } = await createdThenPending();
  await forget(id);
  const apply = (e: typeof created) => h.svc.rules.analytics.applyFacts([{ event: e, ticket: e.data.ticket }]);
  await apply(updated);
  await apply(created);
  expect(await factOf(id)).toMatchObject({ status: 'pending', revision: 1 });
});

test('both events at once on a ticket without a fact: the newer one wins, in either order', async () => {
  const { id, created, updated } = await createdThenPending();
  for (let round = 0; round < 20; round++) {
    await forget(id);
    const apply = (e: typeof created) => h.svc.rules.analytics.applyFacts([{ event: e, ticket: e.data.ticket }]);
    await Promise.all(round % 2 ? [apply(created), apply(updated)] : [apply(updated), apply(created)]);
    expect(await factOf(id)).toMatchObject({ status: 'pending', revision: 1 });
  }
});

/**
 * A real MongoDB can fail an upsert with a duplicate key when another handler inserts the same fact
 * between the upsert's read and its insert (the embedded server runs each command whole, so the race
 * is staged here: the first upsert lets the other event's write land, then fails as MongoDB would).
 */
describe('a duplicate key on the first upsert', () => {
  const raceOnce = (other: () => Promise<void>) =>
    jest.spyOn(collectionOf(h.svc.conn.models.TicketFact!), 'bulkWrite').mockImplementationOnce((async () => {
      await other();
      throw Object.assign(new Error('E11000 duplicate key error collection: ticket_facts'), { code: 11000, writeErrors: [{ index: 0, code: 11000 }] });
    }) as never);

  test.each([
    ['an older event inserted the fact: the newer snapshot is applied by the retry', 'created', 'updated'],
    ['a newer event inserted the fact: the older snapshot changes nothing', 'updated', 'created'],
  ] as const)('after %s', async (_what, first, racing) => {
    const events = await createdThenPending();
    await forget(events.id);
    const apply = (e: typeof events.created) => h.svc.rules.analytics.applyFacts([{ event: e, ticket: e.data.ticket }]);
    const spy = raceOnce(() => apply(events[first]));
    try {
      await apply(events[racing]);
      expect(await factOf(events.id)).toMatchObject({ status: 'pending', revision: 1 });
    } finally {
      spy.mockRestore();
    }
  });
});
