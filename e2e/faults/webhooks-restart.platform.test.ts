import { randomBytes } from 'node:crypto';
import { createBus, createLogger, InternalTokens, type EventBus } from '@helpdesk/kit';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { startWebhooks, type RunningWebhooks, type WebhookSettings } from '@helpdesk/webhooks';
import { eventually, Receiver } from '@helpdesk/testing';

/**
 * Issue 5's fault test: 1,000 tickets are created through the gateway while the webhooks service is
 * stopped halfway and started again (same database, a new connection to the same durable RabbitMQ
 * queue, which keeps the events meanwhile). Every ticket.created must reach the loopback receiver,
 * and a receiver that de-duplicates by x-svc-delivery must end with exactly 1,000 effects, one per
 * ticket. Runs in the infra pass, against the machine's RabbitMQ (AMQP_URL).
 */
const run = process.env.AMQP_URL ? describe : describe.skip;
const TOTAL = 1000;
const STOP_AT = 500;
const RESTART_AT = 750;
const CONCURRENCY = 16;
const logger = createLogger('webhooks-restart-test', 'silent');
const settings: Partial<WebhookSettings> = { allowLoopback: true, pollIntervalMs: 100, retryScheduleMs: [200, 500, 1000, 2000, 4000] };

run('webhook deliveries across a restart of the webhooks service', () => {
  const secret = randomBytes(32).toString('hex');
  let tp: TestPlatform;
  let rx: Receiver;
  let restartedBus: EventBus | null = null;
  let restarted: RunningWebhooks | null = null;

  beforeAll(async () => {
    // Our own token secret, so the restarted service accepts the gateway's tokens like the first one did.
    tp = await startTestPlatform({ webhooks: settings, internalTokenSecret: secret });
    rx = await Receiver.start();
  }, 60_000);

  afterAll(async () => {
    await restarted?.stop();
    await restartedBus?.close();
    await tp?.stop();
    await rx?.close();
  }, 60_000);

  it('delivers every ticket.created once, none lost, though the service was down for a quarter of them', async () => {
    const hook = await tp.api.post(`${tp.teamPath}/webhooks`, { name: 'restart', url: rx.url('/restart'), events: 'ticket.created' });
    expect(hook.status).toBe(201);
    const port = Number(new URL(tp.platform.webhooks.url).port);

    let stopped: Promise<void> | null = null;
    let started: Promise<void> | null = null;
    let down = false;
    let createdWhileDown = 0;
    const stop = async () => {
      // The bus first: its consumer stops taking events and finishes (and acks) those in flight; the
      // unconsumed ones stay in the durable queue. Then the service: attempts in flight end, leases are released.
      await tp.platform.buses.webhooks.close();
      await tp.platform.webhooks.stop();
      down = true;
    };
    const start = async () => {
      restartedBus = createBus({ amqpUrl: process.env.AMQP_URL, logger, ...tp.amqpNames });
      restarted = await startWebhooks({ mongoUrl: tp.platform.mongoUrl, bus: restartedBus, tokens: new InternalTokens(secret), logger, port, settings, secrets: tp.platform.secrets });
      down = false;
    };

    const created: string[] = [];
    const refused: string[] = [];
    let next = 0;
    const worker = async () => {
      while (next < TOTAL) {
        const i = next++;
        if (i === STOP_AT) stopped = stop();
        if (i >= STOP_AT && i < RESTART_AT) {
          while (!stopped) await new Promise((r) => setTimeout(r, 5));
          await stopped;
        }
        if (i === RESTART_AT) started = start();
        const res = await tp.api.post(`${tp.teamPath}/tickets`, { title: `Restart ticket ${i}` });
        if (res.status === 201) {
          created.push(res.body.data.id);
          if (down) createdWhileDown++;
        } else refused.push(`${res.status} ${res.text}`);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    await started;
    expect(refused).toEqual([]);
    expect(created).toHaveLength(TOTAL);
    expect(createdWhileDown).toBeGreaterThanOrEqual(RESTART_AT - STOP_AT - CONCURRENCY);

    const deadline = Date.now() + 120_000;
    while (rx.effects.length < TOTAL && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));

    // One effect per delivery id, and exactly one delivery id per ticket: none lost, none doubled.
    const ticketOf = new Map<string, string>();
    for (const r of rx.requests) ticketOf.set(String(r.headers['x-svc-delivery']), JSON.parse(r.body).data.ticket.id);
    expect(rx.effects).toHaveLength(TOTAL);
    expect(rx.effects.map((id) => ticketOf.get(id)).sort()).toEqual([...created].sort());
    // The log agrees: every delivery succeeded, through the restarted service and the gateway.
    // (A receiver counts a request when it arrives; the worker records the attempt after the answer: wait for the last records.)
    const deliveries = () => restarted!.conn.collection('deliveries').find({ webhookId: hook.body.data.id }).toArray();
    await eventually('every attempt is recorded', async () => (await deliveries()).every((d) => d.status !== 'pending'), 15_000);
    const rows = await deliveries();
    expect(rows).toHaveLength(TOTAL);
    expect(rows.filter((d) => d.status !== 'succeeded')).toEqual([]);
    const page = await tp.api.get(`${tp.teamPath}/webhooks/${hook.body.data.id}/deliveries`, { query: { status: 'succeeded', pageSize: 1 } });
    expect(page.body.meta.pagination.total).toBe(TOTAL);
  }, 180_000);
});
