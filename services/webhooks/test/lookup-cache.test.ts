/**
 * What the partitions' active webhooks subscribe to is kept per process (docs/adr/0045; the harness
 * runs on the in-process bus, so it is on). Each case first makes it hold the old answer with an
 * event no webhook wanted, changes the webhooks, and checks that the very next event follows them.
 */
import { randomUUID } from 'node:crypto';
import { envelope, ticketFixture } from '@helpdesk/testing';
import { startHarness, type Harness } from './helpers';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
}, 30_000);
afterAll(async () => h?.stop());

/** Publishes a `ticket.created` of the team and answers how many deliveries it made. */
async function deliveriesOfNextEvent(teamId: string): Promise<number> {
  const e = envelope('ticket.created', { ticket: ticketFixture(null), messages: [] }, { teamId });
  await h.publish(e);
  return h.svc.conn.collection('deliveries').countDocuments({ teamId, eventId: e.id } as any);
}

it('runs with the patterns kept (in-process bus: its sole instance)', () => {
  expect(h.bus.processLocal).toBe(true);
});

it('a webhook created, changed, disabled, enabled or deleted is followed by the very next event', async () => {
  const teamId = randomUUID();
  const as = { teamId };
  expect(await deliveriesOfNextEvent(teamId)).toBe(0); // none: the partition's (empty) patterns are now kept

  const w = await h.createWebhook({ name: 'CRM', url: 'http://127.0.0.1:9/hook', events: ['ticket.created'] }, as);
  expect(await deliveriesOfNextEvent(teamId)).toBe(1);

  expect((await h.api('PATCH', `/teams/{team}/webhooks/${w.id}`, { as, body: { events: ['ticket.closed'] } })).status).toBe(200);
  expect(await deliveriesOfNextEvent(teamId)).toBe(0);
  expect((await h.api('PATCH', `/teams/{team}/webhooks/${w.id}`, { as, body: { events: ['ticket.*'] } })).status).toBe(200);
  expect(await deliveriesOfNextEvent(teamId)).toBe(1);

  expect((await h.api('PATCH', `/teams/{team}/webhooks/${w.id}`, { as, body: { isActive: false } })).status).toBe(200);
  expect(await deliveriesOfNextEvent(teamId)).toBe(0);
  expect((await h.api('PATCH', `/teams/{team}/webhooks/${w.id}`, { as, body: { isActive: true } })).status).toBe(200);
  expect(await deliveriesOfNextEvent(teamId)).toBe(1);

  expect((await h.api('DELETE', `/teams/{team}/webhooks/${w.id}`, { as })).status).toBe(200);
  expect(await deliveriesOfNextEvent(teamId)).toBe(0);
});

it('a webhook of the live partition does not receive the test partition’s events', async () => {
  const teamId = randomUUID();
  expect(await deliveriesOfNextEvent(teamId)).toBe(0);
  await h.createWebhook({ name: 'Live', url: 'http://127.0.0.1:9/hook', events: ['*'] }, { teamId, mode: 'live' });
  expect(await deliveriesOfNextEvent(teamId)).toBe(0);
  await h.createWebhook({ name: 'Test', url: 'http://127.0.0.1:9/hook', events: ['*'] }, { teamId });
  expect(await deliveriesOfNextEvent(teamId)).toBe(1);
});
