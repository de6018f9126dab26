/** The SLA breach scan (docs/adr/0026): its lease between replicas, and a fresh replica (a restart) catching up. */
import { logger } from '@helpdesk/testing';
import { ticketingModels } from '../src/collections';
import { slaBreachScan } from '../src/sla/scheduler';
import { useHarness, type Harness } from './helpers';

let h: Harness;
useHarness((started) => (h = started));

/** Another replica on the same database (its own holder id), on the service's clock. */
const replica = () =>
  slaBreachScan({ conn: h.svc.conn, models: ticketingModels(h.svc.conn), tickets: h.svc.rules.tickets, clock: h.svc.rules.clock, logger, intervalMs: 60_000 });
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
