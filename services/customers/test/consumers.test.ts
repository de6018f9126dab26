/** What ticket events do to customers: ticketCount and the calculated sentiment (memory bus, embedded MongoDB). */
import { newId } from '@helpdesk/kit';
import { labelOf, scoreMessage } from '../src/customers/sentiment';
import { envelope, messageFixture, ticketFixture } from '@helpdesk/testing';
import { startHarness, TEAM_A, TEAM_B, type Caller, type Harness } from './helpers';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
}, 30_000);
afterAll(async () => {
  await h?.stop();
});

const C = '/teams/{team}/customers';
/** Ticket events as ticketing publishes them, in the callers' team and test partition. */
const A = { teamId: TEAM_A };
let n = 0;
const customer = async (as?: Caller) => {
  const r = await h.api('POST', C, { body: { name: `Customer ${++n}`, email: `t${n}@example.com` }, as });
  if (r.status !== 201) throw new Error(`customer: ${r.status}`);
  return r.body.data;
};
const get = async (id: string, as?: Caller) => (await h.api('GET', `${C}/${id}`, { as })).body.data;
const eventsOfCustomer = (id: string) => h.events.filter((e) => e.data.customer?.id === id);

describe('ticketCount', () => {
  test('ticket.created +1, ticket.deleted -1; no customer event, updatedAt unchanged', async () => {
    const c = await customer();
    const t1 = ticketFixture(c.id);
    const t2 = ticketFixture(c.id);
    await h.publish(envelope('ticket.created', { ticket: t1 }, A));
    await h.publish(envelope('ticket.created', { ticket: t2 }, A));
    expect((await get(c.id)).ticketCount).toBe(2);
    await h.publish(envelope('ticket.deleted', { ticketId: t1.id, customerId: c.id, ticket: t1 }, A));
    const after = await get(c.id);
    expect(after.ticketCount).toBe(1);
    expect(after.updatedAt).toBe(c.updatedAt);
    expect(eventsOfCustomer(c.id).map((e) => e.type)).toEqual(['customer.created']);
  });

  test('a ticket moved between customers: -1 on the old one, +1 on the new one; other changes do nothing', async () => {
    const [a, b] = [await customer(), await customer()];
    const t = ticketFixture(a.id);
    await h.publish(envelope('ticket.created', { ticket: t }, A));
    await h.publish(envelope('ticket.updated', { ticket: { ...t, title: 'x' }, changes: ['title'], previous: { title: t.title } }, A));
    expect((await get(a.id)).ticketCount).toBe(1);
    await h.publish(envelope('ticket.updated', { ticket: { ...t, customerId: b.id }, changes: ['customerId'], previous: { customerId: a.id } }, A));
    expect([(await get(a.id)).ticketCount, (await get(b.id)).ticketCount]).toEqual([0, 1]);
    // unlinked (as ticketing does when a customer is deleted), then linked again
    await h.publish(envelope('ticket.updated', { ticket: { ...t, customerId: null }, changes: ['customerId'], previous: { customerId: b.id } }, A));
    expect((await get(b.id)).ticketCount).toBe(0);
    await h.publish(envelope('ticket.updated', { ticket: { ...t, customerId: a.id }, changes: ['customerId'], previous: { customerId: null } }, A));
    expect((await get(a.id)).ticketCount).toBe(1);
  });

  test('a replayed event (same id) is applied once', async () => {
    const c = await customer();
    const t = ticketFixture(c.id);
    const id = newId('event');
    await h.publish(envelope('ticket.created', { ticket: t }, { ...A, id }));
    await h.publish(envelope('ticket.created', { ticket: t }, { ...A, id }));
    // and twice at the same time
    const again = envelope('ticket.created', { ticket: t }, A);
    await h.publish(again, again);
    expect((await get(c.id)).ticketCount).toBe(2);
    expect(await h.svc.conn.collection('processed_events').countDocuments({ _id: { $in: [`customers:${id}`, `customers:${again.id}`] } } as any)).toBe(2);
  });

  test('order does not matter: deleted before created ends at 0 (shown as 0 in between)', async () => {
    const c = await customer();
    const t = ticketFixture(c.id);
    await h.publish(envelope('ticket.deleted', { ticketId: t.id, customerId: c.id, ticket: t }, A));
    expect((await get(c.id)).ticketCount).toBe(0);
    await h.publish(envelope('ticket.created', { ticket: t }, A));
    expect((await get(c.id)).ticketCount).toBe(0);
    await h.publish(envelope('ticket.created', { ticket: ticketFixture(c.id) }, A));
    expect((await get(c.id)).ticketCount).toBe(1);
  });

  test('a missing customer, another team\'s or partition\'s customer: nothing happens', async () => {
    const c = await customer();
    await h.publish(envelope('ticket.created', { ticket: ticketFixture('cus_doesnotexist000000000000') }, A));
    await h.publish(envelope('ticket.created', { ticket: ticketFixture(c.id) }, { teamId: TEAM_B }));
    await h.publish(envelope('ticket.created', { ticket: ticketFixture(c.id) }, { ...A, mode: 'live' }));
    expect((await get(c.id)).ticketCount).toBe(0);
  });

  test('many concurrent ticket.created for one customer add up exactly', async () => {
    const c = await customer();
    await Promise.all(Array.from({ length: 20 }, () => h.publish(envelope('ticket.created', { ticket: ticketFixture(c.id) }, A))));
    expect((await get(c.id)).ticketCount).toBe(20);
  });
});

describe('sentiment', () => {
  test('the rule: AFINN comparative scores averaged, ±0.05 thresholds', () => {
    expect(scoreMessage('Great, thank you so much!')).toBeCloseTo(1);
    expect(scoreMessage('My order arrived damaged')).toBeCloseTo(-0.75);
    expect(scoreMessage('Where is my order?')).toBe(0);
    expect(scoreMessage('')).toBe(0);
    expect(labelOf([])).toBe('neutral');
    expect(labelOf([{ score: 0.05 }])).toBe('positive');
    expect(labelOf([{ score: -0.05 }])).toBe('negative');
    expect(labelOf([{ score: 0.04 }, { score: -0.03 }])).toBe('neutral');
    expect(labelOf([{ score: 1 }, { score: -0.75 }, { score: -0.75 }])).toBe('negative');
  });

  test('customer messages move the sentiment; a change emits customer.updated (changes [sentiment], actor system)', async () => {
    const c = await customer();
    const t = ticketFixture(c.id);
    const created = envelope('ticket.created', { ticket: t, messages: [messageFixture(t.id, 'Thanks, this is great and I love it')] }, A);
    await h.publish(created);
    const after = await get(c.id);
    expect(after).toMatchObject({ sentiment: 'positive', ticketCount: 1 });
    expect(after.updatedAt > c.updatedAt).toBe(true);
    const [e] = eventsOfCustomer(c.id).filter((x) => x.type === 'customer.updated');
    expect(e).toMatchObject({
      requestId: created.requestId,
      actor: { type: 'system', id: null },
      data: { changes: ['sentiment'], previous: { sentiment: 'neutral' }, customer: { id: c.id, sentiment: 'positive', rev: 1, ticketCount: 1 } },
    });

    // +1.00 and -1.00 average 0: neutral; a third, angrier message tips it to negative
    await h.publish(envelope('ticket.message_added', { ticket: t, message: messageFixture(t.id, 'This is terrible') }, A));
    expect((await get(c.id)).sentiment).toBe('neutral');
    await h.publish(envelope('ticket.message_added', { ticket: t, message: messageFixture(t.id, 'Awful. I hate this useless product') }, A));
    expect((await get(c.id)).sentiment).toBe('negative');
    // a neutral message that leaves the label alone emits nothing
    await h.publish(envelope('ticket.message_added', { ticket: t, message: messageFixture(t.id, 'ticket number 42') }, A));
    expect(eventsOfCustomer(c.id).map((x) => x.type)).toEqual(['customer.created', 'customer.updated', 'customer.updated', 'customer.updated']);
  });

  test('agent, system and internal messages do not count; nor do messages of tickets without a customer', async () => {
    const c = await customer();
    const t = ticketFixture(c.id);
    await h.publish(
      envelope('ticket.created', {
        ticket: t,
        messages: [
          messageFixture(t.id, 'I love it, wonderful', { sender: 'agent' }),
          messageFixture(t.id, 'Amazing great happy', { sender: 'system' }),
          messageFixture(t.id, 'Fantastic, love it', { isInternal: true }),
        ],
      }, A),
    );
    await h.publish(envelope('ticket.message_added', { ticket: t, message: messageFixture(t.id, 'superb excellent', { sender: 'agent' }) }, A));
    await h.publish(envelope('ticket.message_added', { ticket: t, message: messageFixture(t.id, 'great great', { isInternal: true }) }, A));
    await h.publish(envelope('ticket.message_added', { ticket: ticketFixture(null), message: messageFixture(t.id, 'great great') }, A));
    expect((await get(c.id)).sentiment).toBe('neutral');
    const raw = await h.svc.conn.collection('customers').findOne({ _id: c.id } as any);
    expect(raw!.sentimentScores).toEqual([]);
  });

  test('only the 10 newest messages (by their time, whatever the arrival order) count', async () => {
    const c = await customer();
    const t = ticketFixture(c.id);
    const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 0, minute)).toISOString();
    for (let i = 0; i < 10; i++) {
      await h.publish(envelope('ticket.message_added', { ticket: t, message: messageFixture(t.id, 'terrible awful', { createdAt: at(10 + i) }) }, A));
    }
    expect((await get(c.id)).sentiment).toBe('negative');
    // older happy messages arriving late are not among the newest 10
    for (let i = 0; i < 5; i++) {
      await h.publish(envelope('ticket.message_added', { ticket: t, message: messageFixture(t.id, 'wonderful great', { createdAt: at(i) }) }, A));
    }
    expect((await get(c.id)).sentiment).toBe('negative');
    // newer ones push the old ones out
    for (let i = 0; i < 10; i++) {
      await h.publish(envelope('ticket.message_added', { ticket: t, message: messageFixture(t.id, 'wonderful great', { createdAt: at(30 + i) }) }, A));
    }
    expect((await get(c.id)).sentiment).toBe('positive');
    const raw = await h.svc.conn.collection('customers').findOne({ _id: c.id } as any);
    expect(raw!.sentimentScores).toHaveLength(10);
  });

  test('a replayed message is scored once', async () => {
    const c = await customer();
    const t = ticketFixture(c.id);
    const m = messageFixture(t.id, 'bad');
    await h.publish(envelope('ticket.message_added', { ticket: t, message: messageFixture(t.id, 'good') }, A));
    const id = newId('event');
    await h.publish(envelope('ticket.message_added', { ticket: t, message: m }, { ...A, id }));
    await h.publish(envelope('ticket.message_added', { ticket: t, message: m }, { ...A, id }));
    const raw = await h.svc.conn.collection('customers').findOne({ _id: c.id } as any);
    expect(raw!.sentimentScores.map((s: any) => s.messageId)).toHaveLength(2);
  });

  test('a PATCH override holds while calculations go on; null shows the calculated value again', async () => {
    const c = await customer();
    const t = ticketFixture(c.id);
    const pinned = await h.api('PATCH', `${C}/${c.id}`, { body: { sentiment: 'positive' } });
    expect(pinned.body.data.sentiment).toBe('positive');
    expect(await h.eventsOf(pinned.requestId)).toHaveLength(1);
    const before = eventsOfCustomer(c.id).length;
    await h.publish(envelope('ticket.message_added', { ticket: t, message: messageFixture(t.id, 'This is terrible and I hate it') }, A));
    expect((await get(c.id)).sentiment).toBe('positive');
    expect(eventsOfCustomer(c.id)).toHaveLength(before); // the shown value did not change
    const cleared = await h.api('PATCH', `${C}/${c.id}`, { body: { sentiment: null } });
    expect(cleared.body.data.sentiment).toBe('negative');
    expect((await h.api('GET', `${C}?sentiment=negative&search=${encodeURIComponent(c.email)}`)).body.data.map((x: any) => x.id)).toEqual([c.id]);
  });

  test('an override equal to the shown value pins it without an event', async () => {
    const c = await customer();
    const t = ticketFixture(c.id);
    const r = await h.api('PATCH', `${C}/${c.id}`, { body: { sentiment: 'neutral' } });
    expect(r.body.data).toEqual(c);
    expect(await h.eventsOf(r.requestId)).toEqual([]);
    await h.publish(envelope('ticket.message_added', { ticket: t, message: messageFixture(t.id, 'Great, thank you so much!') }, A));
    expect((await get(c.id)).sentiment).toBe('neutral');
  });
});
