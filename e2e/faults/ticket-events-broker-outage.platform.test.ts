import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import mongoose from 'mongoose';
import type { EventEnvelope } from '@helpdesk/contracts';
import { AmqpBus, consumeOnce, connectMongo, createLogger } from '@helpdesk/kit';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { PrivateBroker } from '../../scripts/private-broker';

/**
 * Issue 3's fault test: RabbitMQ (a private node on its own port) is stopped while 1,000 tickets
 * are being created through the gateway and started again. Every `ticket.created` of a 201 must
 * reach a consumer, and the consumer's side effect must be applied exactly once.
 * Runs in the infra pass (it needs Debian's rabbitmq-server).
 */
const run = process.env.AMQP_URL ? describe : describe.skip;
const TOTAL = 1000;
const CONCURRENCY = 16;
const logger = createLogger('outage-test', 'silent');

run('ticket.created across a RabbitMQ outage', () => {
  const broker = new PrivateBroker(`/tmp/helpdesk-rmq-${randomBytes(4).toString('hex')}`, 5691);
  let tp: TestPlatform;
  let consumerDb: mongoose.Connection;
  let consumerBus: AmqpBus;

  beforeAll(async () => {
    await broker.start();
    tp = await startTestPlatform({ amqpUrl: broker.url });
    consumerDb = await connectMongo(tp.platform.mongoUrl, 'outage_consumer');
    consumerBus = new AmqpBus({ url: broker.url, logger, reconnectMinMs: 100, reconnectMaxMs: 1000, ...tp.amqpNames });
  }, 120_000);

  afterAll(async () => {
    await consumerBus?.close();
    await consumerDb?.close();
    await tp?.stop();
    await broker.stop();
    rmSync(broker.dir, { recursive: true, force: true });
  }, 120_000);

  it('delivers every event of a 201 once, with no side effect applied twice', async () => {
    const Effect = consumerDb.model('TicketSeen', new mongoose.Schema({ _id: String, ticketId: String, applied: Number }, { versionKey: false }), 'tickets_seen');
    let deliveries = 0;
    await consumerBus.subscribe(
      'outage-consumer',
      ['ticket.created'],
      async (event: EventEnvelope) => {
        deliveries++;
        await consumeOnce(consumerDb, 'outage-consumer', event, async (session) => {
          const ticketId = (event.data as { ticket: { id: string } }).ticket.id;
          await Effect.updateOne({ _id: ticketId }, { $inc: { applied: 1 }, $set: { ticketId } }, { upsert: true, session });
        });
      },
      { prefetch: 32, retryDelayMs: 100 },
    );

    const created: string[] = [];
    const refused: number[] = [];
    let next = 0;
    let stopped: Promise<void> | null = null;
    const waitFor = async (p: () => Promise<void> | null) => {
      while (!p()) await new Promise((r) => setTimeout(r, 10));
      await p();
    };
    let restarted: Promise<void> | null = null;
    let brokerDown = false;
    let createdWhileDown = 0;
    // Tickets 0-299 go out with the broker up; at 300 the broker is stopped and the workers wait
    // until it is really down; 300-649 are created while it is down; at 650 it is started again
    // and the rest are created while it comes back.
    const worker = async () => {
      while (next < TOTAL) {
        const i = next++;
        if (i === 300) stopped = broker.stop().then(() => void (brokerDown = true));
        if (i >= 300 && i < 650) await waitFor(() => stopped);
        if (i === 650) restarted = broker.start().then(() => void (brokerDown = false));
        const res = await tp.api.post(`${tp.teamPath}/tickets`, { title: `Outage ticket ${i}`, messages: [{ sender: 'customer', content: `help ${i}` }] });
        if (res.status === 201) {
          created.push(res.body.data.id);
          if (brokerDown) createdWhileDown++;
        } else refused.push(res.status);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    await restarted;

    // The API kept answering while the broker was down: the outbox holds the events.
    expect(refused).toEqual([]);
    expect(created).toHaveLength(TOTAL);
    expect(createdWhileDown).toBeGreaterThanOrEqual(350);

    const deadline = Date.now() + 90_000;
    while ((await Effect.countDocuments()) < created.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
    const effects = await Effect.find().lean();
    expect(effects.map((e) => e.ticketId).sort()).toEqual([...created].sort());
    expect(effects.filter((e) => e.applied !== 1)).toEqual([]);
    expect(deliveries).toBeGreaterThanOrEqual(TOTAL);
  }, 240_000);
});
