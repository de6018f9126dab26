/** The SLA breach scan (docs/adr/0026, 0070): its lease between replicas, a fresh replica (a restart) catching up, and the running worker woken by the write that sets a due time. */
import { logger } from '@helpdesk/testing';
import { ticketingModels } from '../src/collections';
import { slaBreachScan } from '../src/sla/scheduler';
import { useHarness, type Harness } from './helpers';

let h: Harness;
useHarness((started) => (h = started));

/** Another replica on the same database (its own holder id), on the service's clock. */
const replica = () =>
  slaBreachScan({ conn: h.svc.conn, models: ticketingModels(h.svc.conn), tickets: h.svc.rules.tickets, clock: h.svc.rules.clock, logger, idleLookMs: 60_000 });
const leases = () => h.svc.conn.collection('scheduler_leases');

test('one replica holds the lease until it expires; then another takes it over', async () => {
  const [a, b] = [replica(), replica()];
  await leases().updateOne({ _id: 'sla-breach-scan' as any }, { $set: { holder: a.holder, expiresAt: new Date(Date.now() + 60_000) } }, { upsert: true });
  expect(await b.takeLease()).toBe(false);
  expect(await a.takeLease()).toBe(true); // renewed by its holder
  await leases().updateOne({ _id: 'sla-breach-scan' as any }, { $set: { expiresAt: new Date(Date.now() - 1) } });
  expect(await b.takeLease()).toBe(true);
  expect(await a.takeLease()).toBe(false);
  expect((await leases().findOne({ _id: 'sla-breach-scan' as any }))?.holder).toBe(b.holder);
  await leases().deleteOne({ _id: 'sla-breach-scan' as any, holder: b.holder }); // b hands it back, as a worker does after its scan
});

test('a replica started after the due time (a restart) emits the breach once; scans after it emit nothing', async () => {
  const rule = await h.api('POST', '/teams/{team}/sla/rules', { body: { name: 'Urgent', priorityKey: 'urgent', responseTimeMinutes: 10, resolutionTimeMinutes: 600, use24x7: true } });
  expect(rule.status).toBe(201);
  h.svc.rules.clock.now = () => new Date('2026-05-04T10:00:00Z');
  const t = await h.api('POST', '/teams/{team}/tickets', { body: { title: 'Down', priority: 'urgent' } });
  expect(t.body.data.sla.firstResponse.dueAt).toBe('2026-05-04T10:10:00.000Z');
  h.svc.rules.clock.now = () => new Date('2026-05-04T11:00:00Z');
  const fresh = replica();
  await Promise.all([fresh.scanDue(), replica().scanDue()]);
  expect(await fresh.scanDue()).toBe(0);
  await h.svc.relay.drain();
  const breaches = h.events.filter((e) => e.type === 'sla.breached' && e.data.ticket.id === t.body.data.id);
  expect(breaches.map((e) => e.data.target)).toEqual(['first_response']);
  const stored = await h.svc.conn.collection('tickets').findOne({ _id: t.body.data.id });
  expect(stored).toMatchObject({ slaNextDueAt: new Date('2026-05-04T20:00:00Z'), sla: { firstResponse: { status: 'breached' } } });
});

test('the running worker breaches a ticket at its due time, woken by the write that set it (not by a fixed interval)', async () => {
  expect((await h.api('POST', '/teams/{team}/sla/rules', { body: { name: 'High', priorityKey: 'high', responseTimeMinutes: 10, resolutionTimeMinutes: 600, use24x7: true } })).status).toBe(201);
  const clock = h.svc.rules.clock;
  const t0 = new Date('2026-06-01T10:00:00Z').getTime();
  clock.now = () => new Date(t0);
  const t = await h.api('POST', '/teams/{team}/tickets', { body: { title: 'Slow', priority: 'high' } });
  expect(t.status).toBe(201);
  const id = t.body.data.id;
  // Paused with 1.5 s of its 10 minutes left; an hour later it resumes on a clock that runs.
  clock.now = () => new Date(t0 + 10 * 60_000 - 1_500);
  expect((await h.api('PATCH', `/teams/{team}/tickets/${id}`, { body: { status: 'pending' } })).status).toBe(200);
  const offset = t0 + 3_600_000 - Date.now();
  clock.now = () => new Date(Date.now() + offset);
  const reopened = await h.api('PATCH', `/teams/{team}/tickets/${id}`, { body: { status: 'open' } });
  expect(reopened.status).toBe(200);
  const dueAt = reopened.body.data.sla.firstResponse.dueAt as string;
  expect(new Date(dueAt).getTime() - clock.now().getTime()).toBeLessThanOrEqual(1_500);
  // Within the former scan interval (5 s) of the due time, though the worker's idle look is 30 s.
  const deadline = Date.now() + 6_500;
  let breach: any;
  while (!breach && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    breach = h.events.find((e) => e.type === 'sla.breached' && e.data.ticket.id === id);
  }
  expect(breach).toMatchObject({ data: { target: 'first_response', dueAt, breachedAt: dueAt } });
  expect(h.events.filter((e) => e.type === 'sla.breached' && e.data.ticket.id === id)).toHaveLength(1);
});
