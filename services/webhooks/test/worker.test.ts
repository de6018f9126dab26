/**
 * The consumer and the delivery worker on the embedded MongoDB and the memory bus, against real
 * loopback receivers: matching, de-duplication, leases, restarts, the failing-for-too-long rule,
 * cancellation and the concurrency cap. (Through the gateway: e2e/platform/webhooks-*.test.ts.)
 */
import { createBus, type EventBus } from '@helpdesk/kit';
import { startEmbeddedMongo, type EmbeddedMongo } from '@helpdesk/mongo-embedded';
import { envelope, eventually, logger, Receiver, testSecrets, ticketFixture, tokens } from '@helpdesk/testing';
import { startWebhooks, type RunningWebhooks } from '../src/index';
import { call, startHarness, TEAM_A, TEAM_B, type Harness } from './helpers';

const W = '/teams/{team}/webhooks';
/** A `ticket.created` of TEAM_A's test partition, as ticketing publishes it. */
const ticketCreated = (title?: string) => envelope('ticket.created', { ticket: ticketFixture(null, title ? { title } : {}) }, { teamId: TEAM_A });
const deliveriesOf = (h: Harness, webhookId: string) => h.svc.conn.collection('deliveries').find({ webhookId } as any).toArray();

describe('consumer and worker', () => {
  let h: Harness;
  let rx: Receiver;
  beforeAll(async () => {
    h = await startHarness({ retryScheduleMs: [100, 200, 400, 800], jitter: 0, pollIntervalMs: 50, idlePollMs: 200, failingDisableMs: 600, concurrency: 4 });
    rx = await Receiver.start();
  }, 30_000);
  afterAll(async () => {
    await h?.stop();
    await rx?.close();
  });

  test('an event reaches every active webhook of its team and partition that subscribes to it, once, even when the broker redelivers it', async () => {
    const hooks = {
      exact: await h.createWebhook({ name: 'exact', url: rx.url('/exact'), events: 'ticket.created' }),
      category: await h.createWebhook({ name: 'category', url: rx.url('/category'), events: 'ticket.*' }),
      all: await h.createWebhook({ name: 'all', url: rx.url('/all'), events: '*' }),
      other: await h.createWebhook({ name: 'other type', url: rx.url('/other'), events: 'ticket.closed,customer.*' }),
      inactive: await h.createWebhook({ name: 'inactive', url: rx.url('/inactive'), events: '*' }),
      live: await h.createWebhook({ name: 'live', url: rx.url('/live'), events: '*' }, { mode: 'live' }),
      teamB: await h.createWebhook({ name: 'team b', url: rx.url('/team-b'), events: '*' }, { teamId: TEAM_B }),
    };
    await h.api('PATCH', `${W}/${hooks.inactive.id}`, { body: { isActive: false } });
    const e = ticketCreated('once');
    await h.publish(e);
    await h.publish(e); // a broker redelivery (or a relay re-publishing after a crash)
    const ofE = () => rx.requests.filter((r) => JSON.parse(r.body).id === e.id);
    await rx.waitFor(() => ofE().length >= 3, 'three deliveries');
    // A marker event through the same queue: everything before it has been handled.
    const marker = ticketCreated('marker');
    await h.publish(marker);
    await rx.waitFor(() => rx.requests.some((r) => JSON.parse(r.body).id === marker.id), 'the marker');
    expect(ofE().map((r) => r.path).sort()).toEqual(['/all', '/category', '/exact']);
    expect(new Set(ofE().map((r) => r.headers['x-svc-delivery'])).size).toBe(3);
    // (The `*` webhook also received the webhook.created/updated events of the others: events about webhooks are events too.)
    expect(rx.forPath('/all').some((r) => JSON.parse(r.body).type === 'webhook.created')).toBe(true);
    const rowsOfE = await h.svc.conn.collection('deliveries').find({ eventId: e.id } as any).toArray();
    expect(rowsOfE.map((r) => r.webhookId).sort()).toEqual([hooks.exact.id, hooks.category.id, hooks.all.id].sort());
    for (const w of [hooks.other, hooks.inactive, hooks.live, hooks.teamB]) expect(rx.forPath(new URL(w.url).pathname).filter((r) => JSON.parse(r.body).id === e.id)).toEqual([]);
    for (const w of Object.values(hooks)) await h.api('DELETE', `${W}/${w.id}`, { as: w === hooks.live ? { mode: 'live' } : w === hooks.teamB ? { teamId: TEAM_B } : {} });
  });

  test('a webhook whose attempts all fail for failingDisableMs is disabled (reason failing), its pending deliveries cancelled', async () => {
    const down = await Receiver.start(() => ({ status: 500 }));
    try {
      const w = await h.createWebhook({ name: 'failing', url: down.url(), events: 'ticket.created' });
      await h.publish(ticketCreated());
      const disabled = await eventually('webhook.disabled', () => h.events.find((e) => e.type === 'webhook.disabled' && e.data.webhook.id === w.id), 10_000);
      expect(disabled).toMatchObject({ teamId: TEAM_A, mode: 'test', requestId: null, actor: { type: 'system', id: null } });
      expect(disabled.data).toMatchObject({ reason: 'failing', lastStatusCode: 500, webhook: { id: w.id, isActive: false } });
      expect(Date.parse(disabled.data.failingSince)).toBeLessThanOrEqual(Date.now() - 600);
      expect((await h.api('GET', `${W}/${w.id}`)).body.data.isActive).toBe(false);
      const rows = await deliveriesOf(h, w.id);
      expect(rows.map((r) => r.status)).toEqual([expect.stringMatching(/^(cancelled|failed)$/)]);
      const sent = down.requests.length;
      await h.publish(ticketCreated());
      const marker = await h.createWebhook({ name: 'marker', url: rx.url('/marker'), events: 'ticket.created' });
      await h.publish(ticketCreated());
      await rx.waitFor(() => rx.forPath('/marker').length === 1, 'the marker');
      expect(down.requests.length).toBe(sent); // inactive: nothing more
      await h.api('DELETE', `${W}/${marker.id}`);
      await h.api('DELETE', `${W}/${w.id}`);
    } finally {
      await down.close();
    }
  });

  test('a success resets the failing streak', async () => {
    let fail = true;
    const flaky = await Receiver.start(() => ({ status: fail ? 500 : 200 }));
    try {
      const w = await h.createWebhook({ name: 'flaky', url: flaky.url(), events: 'ticket.created' });
      await h.publish(ticketCreated());
      await eventually('failingSince set', async () => (await h.svc.conn.collection('webhooks').findOne({ _id: w.id } as any))?.failingSince);
      fail = false;
      await eventually('failingSince cleared', async () => (await h.svc.conn.collection('webhooks').findOne({ _id: w.id } as any))?.failingSince === null);
      expect((await h.api('GET', `${W}/${w.id}`)).body.data.isActive).toBe(true);
      await h.api('DELETE', `${W}/${w.id}`);
    } finally {
      await flaky.close();
    }
  });

  test('never more than `concurrency` attempts in flight', async () => {
    let open = 0;
    let most = 0;
    const slow = await Receiver.start(() => {
      open++;
      most = Math.max(most, open);
      setTimeout(() => open--, 150);
      return { status: 200, delayMs: 150 };
    });
    try {
      const w = await h.createWebhook({ name: 'slow', url: slow.url(), events: 'ticket.created' });
      // Twenty rows due at once (as after an outage), written straight into the queue.
      const now = new Date();
      await h.svc.conn.collection('deliveries').insertMany(Array.from({ length: 20 }, (_, i) => ({
        _id: `dlv_concurrency${String(i).padStart(10, '0')}`, teamId: TEAM_A, mode: 'test', webhookId: w.id, eventId: `evt_concurrency${i}abcdefgh`,
        eventType: 'ticket.created', requestId: null, test: false, body: '{}', status: 'pending', attempts: [], attemptCount: 0, runAttempts: 0,
        nextAttemptAt: now, leaseOwner: null, leaseUntil: new Date(0), generation: 0, createdAt: now, updatedAt: now,
      })) as any[]);
      await slow.waitFor((r) => r.length === 20, '20 deliveries');
      expect(most).toBe(4);
      // New events handed straight to the worker (rows leased in the consumer's transaction) respect it too.
      most = 0;
      await h.publish(...Array.from({ length: 12 }, () => ticketCreated()));
      await slow.waitFor((r) => r.length === 32, '12 more deliveries');
      expect(most).toBeGreaterThanOrEqual(2);
      expect(most).toBeLessThanOrEqual(4);
      await h.api('DELETE', `${W}/${w.id}`);
    } finally {
      await slow.close();
    }
  });

  test('a cancellation while an attempt is in flight wins; the attempt is still logged and the lease released', async () => {
    const slow = await Receiver.start(() => ({ status: 200, delayMs: 1000 }));
    try {
      const w = await h.createWebhook({ name: 'in flight', url: slow.url(), events: 'ticket.created' });
      await h.publish(ticketCreated());
      await slow.waitFor((r) => r.length === 1, 'the attempt to start');
      // Disabling cancels what waits, including this row (pending, leased, its attempt in flight).
      await h.api('PATCH', `${W}/${w.id}`, { body: { isActive: false } });
      const row = await eventually('the attempt logged', async () => {
        const [d] = await deliveriesOf(h, w.id);
        return d?.attemptCount === 1 ? d : undefined;
      });
      expect(row).toMatchObject({ status: 'cancelled', nextAttemptAt: null, leaseOwner: null, runAttempts: 0 });
      expect(row.attempts.map((a: any) => [a.attempt, a.statusCode])).toEqual([[1, 200]]);
      await h.api('DELETE', `${W}/${w.id}`);
    } finally {
      await slow.close();
    }
  });

  test('a row leased by a worker that died is sent once its lease expires', async () => {
    const w = await h.createWebhook({ name: 'lease', url: rx.url('/lease'), events: 'ticket.created' });
    // Stop the deliveries of this webhook from being claimed first: create the row as a dead worker's claim.
    const leaseUntil = new Date(Date.now() + 700);
    await h.svc.conn.collection('deliveries').insertOne({
      _id: 'dlv_deadworker000000000001', teamId: TEAM_A, mode: 'test', webhookId: w.id, eventId: 'evt_deadworker0000001', eventType: 'ticket.created',
      requestId: null, test: false, body: '{"id":"evt_deadworker0000001"}', status: 'pending', attempts: [], attemptCount: 0, runAttempts: 0,
      nextAttemptAt: new Date(), leaseOwner: 'wrk_dead:1', leaseUntil, generation: 0, createdAt: new Date(), updatedAt: new Date(),
    } as any);
    await rx.waitFor(() => rx.forPath('/lease').length === 1, 'the leased row', 5_000);
    expect(rx.forPath('/lease')[0].at).toBeGreaterThanOrEqual(leaseUntil.getTime());
    expect(rx.forPath('/lease')[0].headers['x-svc-request-id']).toBeUndefined(); // no request caused it
    await h.api('DELETE', `${W}/${w.id}`);
  });

  test('disabling by PATCH cancels what waits; enabling again does not revive it; redelivery does', async () => {
    const down = await Receiver.start(() => ({ status: 503, headers: { 'retry-after': '3600' } }));
    try {
      const w = await h.createWebhook({ name: 'later', url: down.url(), events: 'ticket.created' });
      await h.publish(ticketCreated());
      const [row] = await eventually('first attempt', async () => {
        const rows = await deliveriesOf(h, w.id);
        return rows.length === 1 && rows[0].attemptCount === 1 ? rows : undefined;
      });
      expect(row.status).toBe('pending');
      expect(row.nextAttemptAt.getTime() - row.attempts[0].at.getTime()).toBeGreaterThanOrEqual(3_600_000);
      await h.api('PATCH', `${W}/${w.id}`, { body: { isActive: false } });
      expect((await deliveriesOf(h, w.id))[0]).toMatchObject({ status: 'cancelled', nextAttemptAt: null });
      await h.api('PATCH', `${W}/${w.id}`, { body: { isActive: true } });
      expect((await deliveriesOf(h, w.id))[0].status).toBe('cancelled');
      down.respond = () => ({ status: 200 });
      const r = await h.api('POST', `${W}/${w.id}/deliveries/${row._id}/redeliver`);
      expect(r.status).toBe(202);
      const done = await eventually('redelivered', async () => ((await deliveriesOf(h, w.id))[0].status === 'succeeded' ? (await deliveriesOf(h, w.id))[0] : undefined));
      expect(done.attempts.map((a: any) => [a.attempt, a.statusCode])).toEqual([[1, 503], [2, 200]]);
      expect(new Set(down.requests.map((q) => q.headers['x-svc-delivery']))).toEqual(new Set([row._id]));
      await h.api('DELETE', `${W}/${w.id}`);
      expect(await deliveriesOf(h, w.id)).toEqual([]);
    } finally {
      await down.close();
    }
  });
});

describe('rows waiting for a slot (docs/adr/0076)', () => {
  let h: Harness;
  beforeAll(async () => {
    // One slot; a lease only a little longer than an attempt's timeout, so a row that waited behind a slow attempt is short of lease.
    h = await startHarness({ concurrency: 1, timeoutMs: 2500, leaseMs: 3000, retryScheduleMs: [100], jitter: 0, pollIntervalMs: 50, idlePollMs: 200 });
  }, 30_000);
  afterAll(async () => h?.stop());

  test('rows beyond the free slots are written leased to the worker and wait in memory, not in the store', async () => {
    const slow = await Receiver.start(() => ({ status: 200, delayMs: 1000 }));
    try {
      const w = await h.createWebhook({ name: 'waiting', url: slow.url(), events: 'ticket.created' });
      await h.publish(ticketCreated('first'), ticketCreated('second'));
      await slow.waitFor((r) => r.length === 1, 'the first attempt');
      // One slot, in use: the other row is held by this worker (leased to it), not left for a claim.
      const rows = await deliveriesOf(h, w.id);
      expect(rows).toHaveLength(2);
      for (const r of rows) expect(r.leaseOwner).toMatch(/^wrk_[0-9a-f]+:direct$/);
      await slow.waitFor((r) => r.length === 2, 'the second attempt');
      expect(new Set(slow.requests.map((r) => r.headers['x-svc-delivery'])).size).toBe(2);
      expect(slow.requests[1].at - slow.requests[0].at).toBeGreaterThanOrEqual(900); // after the first answer: one slot
      await h.api('DELETE', `${W}/${w.id}`);
    } finally {
      await slow.close();
    }
  });

  test('a waiting row whose lease would end during its attempt is handed back and claimed afresh: sent once, not by two workers at once', async () => {
    // Each answer takes 1.8 s: the second row's lease (3 s from its commit) has about 1.2 s left when the
    // slot frees, less than an attempt may take; claimed afresh, it has 3 s again.
    const slow = await Receiver.start(() => ({ status: 200, delayMs: 1800 }));
    try {
      const w = await h.createWebhook({ name: 'short lease', url: slow.url(), events: 'ticket.created' });
      await h.publish(ticketCreated('first'), ticketCreated('second'));
      await slow.waitFor((r) => r.length === 2, 'both deliveries', 10_000);
      // Sent as it was, its lease would have ended mid-attempt and the claim loop would have sent it again.
      await new Promise((r) => setTimeout(r, 2000));
      expect(slow.requests.map((r) => r.headers['x-svc-delivery']).sort()).toEqual([...new Set(slow.requests.map((r) => r.headers['x-svc-delivery']))].sort());
      expect(slow.requests).toHaveLength(2);
      const rows = await eventually('both succeeded', async () => {
        const rs = await deliveriesOf(h, w.id);
        return rs.length === 2 && rs.every((r) => r.status === 'succeeded') ? rs : undefined;
      });
      for (const r of rows) expect(r.attempts).toHaveLength(1);
      await h.api('DELETE', `${W}/${w.id}`);
    } finally {
      await slow.close();
    }
  });
});

describe('restart', () => {
  let m: EmbeddedMongo;
  beforeAll(async () => {
    m = await startEmbeddedMongo();
  });
  afterAll(async () => m?.close());

  const start = (bus: EventBus) =>
    startWebhooks({ mongoUrl: m.uri(), bus, tokens, logger, secrets: testSecrets, settings: { allowLoopback: true, retryScheduleMs: [800], jitter: 0, pollIntervalMs: 50 } });

  test('a retry scheduled before a restart is sent by the restarted service', async () => {
    const rx = await Receiver.start((_r, n) => ({ status: n === 1 ? 500 : 200 }));
    const bus1 = createBus({ logger });
    let svc: RunningWebhooks = await start(bus1);
    const bus2 = createBus({ logger });
    try {
      const created = await call(svc.url, 'POST', W, { body: { name: 'r', url: rx.url(), events: 'ticket.*' } });
      expect(created.status).toBe(201);
      await bus1.publish([ticketCreated()]);
      await rx.waitFor((r) => r.length === 1, 'first attempt');
      await svc.stop();
      await bus1.close();
      svc = await start(bus2);
      await rx.waitFor((r) => r.length === 2, 'the retry after the restart', 5_000);
      expect(rx.requests[1].headers['x-svc-delivery']).toBe(rx.requests[0].headers['x-svc-delivery']);
      expect(rx.requests[1].at - rx.requests[0].at).toBeGreaterThanOrEqual(800);
      const row = await eventually('succeeded', async () => {
        const d = await svc.conn.collection('deliveries').findOne({});
        return d?.status === 'succeeded' ? d : undefined;
      });
      expect(row.attempts.map((a: any) => a.statusCode)).toEqual([500, 200]);
    } finally {
      await svc.stop();
      await bus2.close();
      await bus1.close();
      await rx.close();
    }
  });

  test('rows waiting for a slot when the service stops are handed back: the next worker sends them at once, not after their lease', async () => {
    const rx = await Receiver.start(() => ({ status: 200, delayMs: 500 }));
    const one = (bus: EventBus) =>
      startWebhooks({ mongoUrl: m.uri(), dbName: 'handback', bus, tokens, logger, secrets: testSecrets, settings: { allowLoopback: true, concurrency: 1, pollIntervalMs: 50 } });
    const bus1 = createBus({ logger });
    let svc: RunningWebhooks = await one(bus1);
    const bus2 = createBus({ logger });
    try {
      const created = await call(svc.url, 'POST', W, { body: { name: 'h', url: rx.url(), events: 'ticket.created' } });
      expect(created.status).toBe(201);
      await bus1.publish([ticketCreated('first'), ticketCreated('second')]);
      await rx.waitFor((r) => r.length === 1, 'the first attempt');
      await svc.stop(); // the first attempt ends; the second row waited for the one slot, leased for 60 s
      await bus1.close();
      const stopped = Date.now();
      svc = await one(bus2);
      await rx.waitFor((r) => r.length === 2, 'the second delivery, by the next worker', 10_000);
      expect(rx.requests[1].at - stopped).toBeLessThan(10_000);
      expect(new Set(rx.requests.map((r) => r.headers['x-svc-delivery'])).size).toBe(2);
    } finally {
      await svc.stop();
      await bus2.close();
      await bus1.close();
      await rx.close();
    }
  });
});
