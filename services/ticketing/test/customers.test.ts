/**
 * Tickets and their customers, ticketing alone: the customers service's internal endpoints faked,
 * `customer.*` events published on the memory bus as the customers service would publish them.
 */
import { randomUUID } from 'node:crypto';
import type { CustomerSnapshot, EventEnvelope, EventType } from '@helpdesk/contracts';
import { newId } from '@helpdesk/kit';
import { eventually } from '@helpdesk/testing';
import { ticketModel } from '../src/tickets/model';
import { expectError, useHarness, type Caller, type Harness } from './helpers';

let h: Harness;
const { api } = useHarness((started) => (h = started));

const T = '/teams/{team}/tickets';
/** A team of its own per test, so counts and searches see only what the test made. */
const team = (): Caller & { teamId: string } => ({ teamId: randomUUID() });
const ticketCount = (teamId: string) => h.svc.conn.collection('tickets').countDocuments({ teamId });

async function publish(type: EventType, teamId: string, data: Record<string, unknown>): Promise<EventEnvelope> {
  const e = {
    id: newId('event'), type, version: 1, teamId, mode: 'test' as const, occurredAt: new Date().toISOString(),
    requestId: 'req_customerschange1', actor: { type: 'key' as const, id: 'key_customers01' }, data,
  };
  await h.bus.publish([e]);
  return e;
}
const renamed = (c: CustomerSnapshot, name: string, rev: number): CustomerSnapshot => ({ ...c, name, rev, updatedAt: new Date().toISOString() });

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
const titles = async (as: Caller, qs: string) => (await api('GET', `${T}?${qs}`, { as })).body.data.map((t: any) => t.title);

describe('POST /tickets with a customer', () => {
  test('customerId of an existing customer links it; search finds the name; the call forwards the request id', async () => {
    const as = team();
    const c = h.customers.put(as.teamId, 'test', { name: 'Grace Hopper', email: 'grace@example.com' });
    const r = await api('POST', T, { as, body: { title: 'Compiler bug', customerId: c.id, customerName: 'ignored' } });
    expect(r.status).toBe(201);
    expect(r.body.data.customerId).toBe(c.id);
    expect(h.customers.calls.find((x) => x.requestId === r.requestId)).toMatchObject({ method: 'GET', path: `/internal/customers/${c.id}` });
    expect(await titles(as, 'search=hopper')).toEqual(['Compiler bug']);
    const expanded = await api('GET', `${T}/${r.body.data.id}?expand[]=customer`, { as });
    expect(expanded.body.data.customer).toEqual({ id: c.id, name: 'Grace Hopper', email: 'grace@example.com', status: 'active', sentiment: 'neutral', tags: [] });
  });

  test('a customerId nobody has, or one of another team or partition, is 404 and writes nothing', async () => {
    const as = team();
    const theirs = h.customers.put(randomUUID(), 'test', { name: 'Other team', email: 'o@example.com' });
    const live = h.customers.put(as.teamId, 'live', { name: 'Live one', email: 'l@example.com' });
    for (const customerId of ['cus_nobodyhasthis0000000000', theirs.id, live.id]) {
      const r = await api('POST', T, { as, body: { title: 'x', customerId } });
      expectError(r, 404, 'resource_not_found');
      expect(await h.eventsOf(r.requestId)).toEqual([]);
    }
    expect(await ticketCount(as.teamId)).toBe(0);
  });

  test('customerEmail (any case) links the customer who has it; an unknown one is 422 customer_not_found', async () => {
    const as = team();
    const c = h.customers.put(as.teamId, 'test', { name: 'Ada', email: 'ada@example.com' });
    const r = await api('POST', T, { as, body: { title: 'by email', customerEmail: 'ADA@Example.com', customerName: 'Not used' } });
    expect(r.status).toBe(201);
    expect(r.body.data.customerId).toBe(c.id);
    const bad = await api('POST', T, { as, body: { title: 'by email', customerEmail: 'nobody@example.com', customerName: 'Nobody' } });
    expectError(bad, 422, 'customer_not_found', 'customerEmail');
    expect(bad.body.error.type).toBe('validation_error');
    expect(await h.eventsOf(bad.requestId)).toEqual([]);
    expect(await ticketCount(as.teamId)).toBe(1);
  });

  test('customerName alone creates the customer (email null) and links it', async () => {
    const as = team();
    const r = await api('POST', T, { as, body: { title: 'walk-in', customerName: '  Walk In  ' } });
    expect(r.status).toBe(201);
    const made = [...h.customers.store.values()].find((c) => c.id === r.body.data.customerId);
    expect(made).toMatchObject({ name: 'Walk In', email: null, teamId: as.teamId, mode: 'test' });
    expect(await titles(as, 'search=walk%20in')).toEqual(['walk-in']);
  });

  test('ticket.created carries the initial messages', async () => {
    const r = await api('POST', T, { body: { title: 'with thread', messages: [{ sender: 'customer', content: 'hello' }, { sender: 'agent', content: 'hi', isInternal: true }] } });
    const [e] = await h.eventsOf(r.requestId);
    expect(e.type).toBe('ticket.created');
    expect((e.data as any).messages.map((m: any) => [m.sender, m.content, m.isInternal])).toEqual([['customer', 'hello', false], ['agent', 'hi', true]]);
  });

  test('the customers service down or failing is 503 service_unavailable and writes nothing; tickets without a customer still work', async () => {
    const as = team();
    const c = h.customers.put(as.teamId, 'test', { name: 'Flaky', email: 'flaky@example.com' });
    try {
      for (const failure of ['down', 500, 503] as const) {
        h.customers.failure = failure;
        for (const body of [{ title: 'x', customerId: c.id }, { title: 'x', customerEmail: c.email }, { title: 'x', customerName: 'New' }]) {
          const r = await api('POST', T, { as, body });
          expectError(r, 503, 'service_unavailable');
          expect(await h.eventsOf(r.requestId)).toEqual([]);
        }
      }
      expect((await api('POST', T, { as, body: { title: 'no customer' } })).status).toBe(201);
    } finally {
      h.customers.failure = null;
    }
    expect(await ticketCount(as.teamId)).toBe(1);
  });
});

describe('PATCH /tickets/:id customerId (moving a ticket)', () => {
  test('moves to another customer, swaps the searchable name, emits ticket.updated with the previous customer; null unlinks', async () => {
    const as = team();
    const a = h.customers.put(as.teamId, 'test', { name: 'Alice Anders', email: 'a@example.com' });
    const b = h.customers.put(as.teamId, 'test', { name: 'Bob Berg', email: 'b@example.com' });
    const t = (await api('POST', T, { as, body: { title: 'Movable', customerId: a.id } })).body.data;
    const r = await api('PATCH', `${T}/${t.id}`, { as, body: { customerId: b.id, title: 'Moved' } });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ customerId: b.id, title: 'Moved' });
    const [e] = await h.eventsOf(r.requestId);
    expect(e.data).toMatchObject({ changes: ['title', 'customerId'], previous: { customerId: a.id, title: 'Movable' }, ticket: { customerId: b.id } });
    expect(await titles(as, 'search=alice')).toEqual([]);
    expect(await titles(as, 'search=bob%20berg')).toEqual(['Moved']);
    expect(await titles(as, 'search=moved')).toEqual(['Moved']);

    const same = await api('PATCH', `${T}/${t.id}`, { as, body: { customerId: b.id } });
    expect(same.status).toBe(200);
    expect(await h.eventsOf(same.requestId)).toEqual([]);

    const off = await api('PATCH', `${T}/${t.id}`, { as, body: { customerId: null } });
    expect(off.body.data.customerId).toBeNull();
    expect((await h.eventsOf(off.requestId))[0].data).toMatchObject({ changes: ['customerId'], previous: { customerId: b.id } });
    expect(await titles(as, 'search=bob')).toEqual([]);
  });

  test('moving to a customer that does not exist is 404 and changes nothing', async () => {
    const as = team();
    const t = (await api('POST', T, { as, body: { title: 'Stays' } })).body.data;
    const r = await api('PATCH', `${T}/${t.id}`, { as, body: { customerId: 'cus_nobodyhasthis0000000000', priority: 'high' } });
    expectError(r, 404, 'resource_not_found');
    expect(await h.eventsOf(r.requestId)).toEqual([]);
    expect((await api('GET', `${T}/${t.id}`, { as })).body.data).toMatchObject({ customerId: null, priority: 'normal' });
  });
});

describe('customer.* events', () => {
  test('customer.updated renames the customer in ticket search and expand; an older rev is ignored', async () => {
    const as = team();
    const c = h.customers.put(as.teamId, 'test', { name: 'Old Name', email: 'n@example.com', rev: 1 });
    const t = (await api('POST', T, { as, body: { title: 'Rename me', customerId: c.id, messages: [{ sender: 'customer', content: 'body text' }] } })).body.data;
    await publish('customer.updated', as.teamId, { customer: renamed(c, 'New Name', 2), changes: ['name'], previous: { name: 'Old Name' } });
    await until('the new name is searchable', async () => (await titles(as, 'search=new%20name')).length === 1);
    expect(await titles(as, 'search=old%20name')).toEqual([]);
    expect(await titles(as, 'search=body%20text')).toEqual(['Rename me']);
    await publish('customer.updated', as.teamId, { customer: renamed(c, 'Stale Name', 1), changes: ['name'], previous: {} });
    await publish('customer.updated', as.teamId, { customer: renamed(c, 'Newest Name', 3), changes: ['name'], previous: {} });
    await until('the newest name is searchable', async () => (await titles(as, 'search=newest')).length === 1);
    expect(await titles(as, 'search=stale')).toEqual([]);
    const got = await api('GET', `${T}/${t.id}?expand[]=customer`, { as });
    expect(got.body.data.customer.name).toBe('Newest Name');
  });

  test('customer.deleted unlinks every ticket (ticket.updated each), once, and refuses new links to that customer', async () => {
    const as = team();
    const c = h.customers.put(as.teamId, 'test', { name: 'Gone Soon', email: 'gone@example.com' });
    const keep = h.customers.put(as.teamId, 'test', { name: 'Keeper', email: 'keep@example.com' });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await api('POST', T, { as, body: { title: `Linked ${i}`, customerId: c.id } })).body.data.id);
    const other = (await api('POST', T, { as, body: { title: 'Other customer', customerId: keep.id } })).body.data;
    await h.svc.relay.drain();
    const before = h.events.length;
    const e = await publish('customer.deleted', as.teamId, { customerId: c.id, customer: { ...c, rev: 5 } });
    await until('the tickets are unlinked', async () => (await titles(as, `customerId=${c.id}`)).length === 0);
    await h.svc.relay.drain();
    await until('three ticket.updated events', async () => h.events.slice(before).filter((x) => x.type === 'ticket.updated').length === 3);
    const updates = h.events.slice(before).filter((x) => x.type === 'ticket.updated');
    expect(updates.map((x) => (x.data as any).ticket.id).sort()).toEqual([...ids].sort());
    for (const u of updates) {
      expect(u).toMatchObject({ requestId: e.requestId, teamId: as.teamId, mode: 'test', data: { changes: ['customerId'], previous: { customerId: c.id }, ticket: { customerId: null } } });
    }
    for (const id of ids) expect((await api('GET', `${T}/${id}`, { as })).body.data.customerId).toBeNull();
    expect((await api('GET', `${T}/${other.id}`, { as })).body.data.customerId).toBe(keep.id);
    expect(await titles(as, 'search=gone%20soon')).toEqual([]);

    // The same event again (a redelivery) changes nothing and emits nothing.
    await h.bus.publish([e]);
    await new Promise((r) => setTimeout(r, 100));
    await h.svc.relay.drain();
    expect(h.events.slice(before).filter((x) => x.type === 'ticket.updated')).toHaveLength(3);

    // The customers service may still answer for a moment; the tombstone refuses the link anyway.
    const late = await api('POST', T, { as, body: { title: 'Too late', customerId: c.id } });
    expectError(late, 404, 'resource_not_found');
    const lateMove = await api('PATCH', `${T}/${other.id}`, { as, body: { customerId: c.id } });
    expectError(lateMove, 404, 'resource_not_found');
    // An update that arrives after the deletion does not bring the customer back.
    await publish('customer.updated', as.teamId, { customer: renamed(c, 'Zombie', 9), changes: ['name'], previous: {} });
    await new Promise((r) => setTimeout(r, 100));
    expect(await h.svc.conn.collection('customer_refs').findOne({ _id: c.id } as any)).toMatchObject({ deleted: true });
  });

  test('a deletion that arrives while a link is uncommitted waits for it, then unlinks that ticket too', async () => {
    const { customerRefs: refs } = h.svc.rules;
    const { conn } = h.svc;
    const Tickets = ticketModel(conn);
    const as = team();
    const scope = { teamId: as.teamId, mode: 'test' as const };
    const c = h.customers.put(as.teamId, 'test', { name: 'Racer', email: 'racer@example.com' });
    const event = { ...scope, requestId: null, actor: { type: 'system' as const, id: null } } as EventEnvelope;
    const now = new Date();
    let deletion: Promise<number> | undefined;
    await conn.transaction(async (session) => {
      await refs.link(scope, c, session);
      deletion = refs.unlinkDeleted(event, c); // starts while the link is uncommitted
      await new Promise((r) => setTimeout(r, 100));
      await Tickets.create([{
        _id: newId('ticket'), ...scope, title: 'Racing', status: 'new', priority: 'normal', customerId: c.id, customerName: c.name,
        customerEmail: c.email, assignedTo: null, tags: [], notes: null, messageCount: 0, metadata: {}, channel: 'api',
        searchText: 'racing\nracer', rev: 0, createdAt: now, updatedAt: now, resolvedAt: null, closedAt: null,
      }], { session });
    });
    expect(await deletion).toBe(1);
    expect(await h.svc.conn.collection('tickets').countDocuments({ teamId: as.teamId, customerId: c.id })).toBe(0);
    expect(await h.svc.conn.collection('tickets').countDocuments({ teamId: as.teamId, customerId: null })).toBe(1);
  });

});

describe('the customer projection checks a ticket\'s customer (docs/adr/0055)', () => {
  const refOf = (id: string) => h.svc.conn.collection('customer_refs').findOne({ _id: id } as any);
  /** Publishes `customer.created` as the customers service would and waits until ticketing has projected it. */
  async function projected(as: { teamId: string }, c: CustomerSnapshot) {
    await publish('customer.created', as.teamId, { customer: c });
    await eventually(`${c.id} is projected`, async () => (await refOf(c.id))?.rev === c.rev);
  }
  /** Runs `fn` with every call to the customers service failing as `failure`. */
  async function customersFailing<T>(failure: 'down' | 500 | 503, fn: () => Promise<T>): Promise<T> {
    h.customers.failure = failure;
    try {
      return await fn();
    } finally {
      h.customers.failure = null;
    }
  }
  const settle = () => new Promise((r) => setTimeout(r, 100));

  test('created, updated, out of order, redelivered: the newest rev stays; a deletion wins over any later-arriving update', async () => {
    const as = team();
    const c = h.customers.put(as.teamId, 'test', { name: 'First', email: 'first@example.com', rev: 0 });
    const created = await publish('customer.created', as.teamId, { customer: c });
    await eventually('created', async () => (await refOf(c.id))?.name === 'First');
    expect(await refOf(c.id)).toMatchObject({ teamId: as.teamId, mode: 'test', name: 'First', email: 'first@example.com', rev: 0, deleted: false });

    const v3 = await publish('customer.updated', as.teamId, { customer: { ...renamed(c, 'Third', 3), email: 'third@example.com' }, changes: ['name', 'email'], previous: {} });
    await eventually('rev 3', async () => (await refOf(c.id))?.rev === 3);
    // Older news arriving late (rev 2), the first event and rev 3 delivered again: nothing moves.
    await publish('customer.updated', as.teamId, { customer: renamed(c, 'Second', 2), changes: ['name'], previous: {} });
    await h.bus.publish([created, v3]);
    await settle();
    expect(await refOf(c.id)).toMatchObject({ name: 'Third', email: 'third@example.com', rev: 3, deleted: false });

    const gone = await publish('customer.deleted', as.teamId, { customerId: c.id, customer: renamed(c, 'Third', 4) });
    await eventually('the tombstone', async () => (await refOf(c.id))?.deleted === true);
    // An update older than the deletion arrives after it, and even a newer-numbered one: the tombstone stays; so does a redelivered deletion.
    await publish('customer.updated', as.teamId, { customer: renamed(c, 'Late', 3), changes: ['name'], previous: {} });
    await publish('customer.updated', as.teamId, { customer: renamed(c, 'Later', 9), changes: ['name'], previous: {} });
    await h.bus.publish([gone]);
    await settle();
    expect(await refOf(c.id)).toMatchObject({ deleted: true, rev: 4, name: 'Third' });

    // A deletion delivered before the customer's creation: the creation never brings it back.
    const d = h.customers.put(as.teamId, 'test', { name: 'Backwards', rev: 0 });
    await publish('customer.deleted', as.teamId, { customerId: d.id, customer: { ...d, rev: 1 } });
    await eventually('the early tombstone', async () => (await refOf(d.id))?.deleted === true);
    await publish('customer.created', as.teamId, { customer: d });
    await settle();
    expect(await refOf(d.id)).toMatchObject({ deleted: true, rev: 1 });
    // Scoped like every ticketing collection: the row is the team's and the partition's only.
    expect(await h.svc.conn.collection('customer_refs').countDocuments({ _id: c.id, teamId: { $ne: as.teamId } } as any)).toBe(0);
  });

  test('a projected customer: tickets are created and moved with the customers service down or failing, with no call to it', async () => {
    const as = team();
    const c = h.customers.put(as.teamId, 'test', { name: 'Known Customer', email: 'known@example.com', rev: 2 });
    const other = h.customers.put(as.teamId, 'test', { name: 'Other Known', email: 'other@example.com', rev: 0 });
    await projected(as, c);
    await projected(as, other);
    const calls = h.customers.calls.length;
    const ids = await customersFailing('down', async () => {
      const made: string[] = [];
      for (const failure of ['down', 500, 503] as const) {
        h.customers.failure = failure;
        const r = await api('POST', T, { as, body: { title: `During an outage (${failure})`, customerId: c.id } });
        expect(r.status).toBe(201);
        expect(r.body.data.customerId).toBe(c.id);
        made.push(r.body.data.id);
      }
      const moved = await api('PATCH', `${T}/${made[0]}`, { as, body: { customerId: other.id } });
      expect(moved.status).toBe(200);
      expect(moved.body.data.customerId).toBe(other.id);
      return made;
    });
    expect(h.customers.calls.length).toBe(calls);
    expect(await titles(as, 'search=known%20customer')).toHaveLength(2);
    expect(await titles(as, 'search=other%20known')).toEqual(['During an outage (down)']);
    const expanded = await api('GET', `${T}/${ids[1]}?expand[]=customer`, { as });
    expect(expanded.body.data.customer).toEqual({ id: c.id, name: 'Known Customer', email: 'known@example.com', status: 'active', sentiment: 'neutral', tags: [] });
    // The name the ticket records is the projection's (the newest ticketing was told about).
    await publish('customer.updated', as.teamId, { customer: renamed(c, 'Renamed Customer', 3), changes: ['name'], previous: {} });
    await eventually('the rename', async () => (await refOf(c.id))?.rev === 3);
    const after = await customersFailing(503, () => api('POST', T, { as, body: { title: 'After the rename', customerId: c.id } }));
    expect(after.status).toBe(201);
    expect(await titles(as, 'search=renamed%20customer')).toContain('After the rename');
  });

  test('first sight: an id the projection has never seen is asked of the customers service once, and its answer recorded', async () => {
    const as = team();
    const c = h.customers.put(as.teamId, 'test', { name: 'Fresh Face', email: 'fresh@example.com', rev: 1 });
    expect(await refOf(c.id)).toBeNull();
    // Unknown and the customers service unreachable: 503 as before, nothing written.
    const refused = await customersFailing('down', () => api('POST', T, { as, body: { title: 'Too early', customerId: c.id } }));
    expectError(refused, 503, 'service_unavailable');
    expect(await refOf(c.id)).toBeNull();

    const first = await api('POST', T, { as, body: { title: 'First sight', customerId: c.id } });
    expect(first.status).toBe(201);
    expect(h.customers.calls.filter((x) => x.requestId === first.requestId)).toEqual([{ method: 'GET', path: `/internal/customers/${c.id}`, requestId: first.requestId }]);
    expect(await refOf(c.id)).toMatchObject({ teamId: as.teamId, mode: 'test', name: 'Fresh Face', email: 'fresh@example.com', rev: 1, deleted: false });

    // Known from now on: no call, even with the service down.
    const again = await customersFailing('down', () => api('POST', T, { as, body: { title: 'Second sight', customerId: c.id } }));
    expect(again.status).toBe(201);
    expect(await ticketCount(as.teamId)).toBe(2);
    // Its customer.created arriving afterwards (same rev) changes nothing.
    await publish('customer.created', as.teamId, { customer: { ...c, name: 'Same Rev Other Name' } });
    await settle();
    expect(await refOf(c.id)).toMatchObject({ name: 'Fresh Face', rev: 1 });
  });

  test('first sights of one customer at once: every ticket is created, one row recorded', async () => {
    const as = team();
    const c = h.customers.put(as.teamId, 'test', { name: 'Crowd', email: 'crowd@example.com' });
    const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => api('POST', T, { as, body: { title: `Together ${i}`, customerId: c.id } })));
    expect(answers.map((r) => r.status)).toEqual(Array(6).fill(201));
    expect(await h.svc.conn.collection('customer_refs').countDocuments({ _id: c.id } as any)).toBe(1);
  });

  test('a customer the projection knows to be deleted is refused as an unknown one is (404 resource_not_found), without asking', async () => {
    const as = team();
    // The customers service still answers for it (its deletion's event got here first): the projection decides.
    const c = h.customers.put(as.teamId, 'test', { name: 'Deleted Dora', email: 'dora@example.com' });
    await projected(as, c);
    await publish('customer.deleted', as.teamId, { customerId: c.id, customer: { ...c, rev: 1 } });
    await eventually('the tombstone', async () => (await refOf(c.id))?.deleted === true);
    const t = (await api('POST', T, { as, body: { title: 'Unlinked' } })).body.data;
    const calls = h.customers.calls.length;

    const unknown = 'cus_nobodyhasthis0000000000';
    const gone = await api('POST', T, { as, body: { title: 'For Dora', customerId: c.id } });
    const nobody = await api('POST', T, { as, body: { title: 'For nobody', customerId: unknown } });
    expectError(gone, 404, 'resource_not_found');
    const same = (e: any, id: string) => ({ ...e, message: e.message.replace(id, '<id>'), request_id: undefined });
    expect(same(gone.body.error, c.id)).toEqual(same(nobody.body.error, unknown));
    expect(await h.eventsOf(gone.requestId)).toEqual([]);
    const move = await customersFailing('down', () => api('PATCH', `${T}/${t.id}`, { as, body: { customerId: c.id } }));
    expectError(move, 404, 'resource_not_found');
    // The only call was the unknown id's first sight.
    expect(h.customers.calls.slice(calls).map((x) => x.path)).toEqual([`/internal/customers/${unknown}`]);
    expect(await ticketCount(as.teamId)).toBe(1);
  });
});
