import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import mongoose from 'mongoose';
import type { EventEnvelope } from '@helpdesk/contracts';
import { AmqpBus } from '../../src/bus';
import { consumeOnce, processedModel, startOutboxRelay, withOutbox, type EventScope, type OutboxRelay } from '../../src/outbox';
import { silentLogger, TEAM, ticket } from './fixtures';
import { PrivateBroker } from './broker';
import { embeddedMongoAvailable, startMongo, type TestMongo } from '../outbox/mongo';

const run = process.env.AMQP_URL && embeddedMongoAvailable ? describe : describe.skip;
const scope: EventScope = { teamId: TEAM, mode: 'live', requestId: null, actor: { type: 'system', id: null } };

const effectSchema = new mongoose.Schema({ _id: String, count: Number }, { versionKey: false });

run('outbox → RabbitMQ → consumeOnce across a broker restart (private node on 5690)', () => {
  const broker = new PrivateBroker(`/tmp/helpdesk-rmq-${randomBytes(4).toString('hex')}`, 5690);
  let mongo: TestMongo;
  let producerDb: mongoose.Connection;
  let consumerDb: mongoose.Connection;
  let bus: AmqpBus;
  let relay: OutboxRelay;

  beforeAll(async () => {
    await broker.start();
    mongo = await startMongo();
    producerDb = await mongo.connect('outage_producer');
    consumerDb = await mongo.connect('outage_consumer');
  }, 90_000);

  afterAll(async () => {
    await relay?.stop();
    await bus?.close();
    await mongo?.close();
    await broker.stop();
    rmSync(broker.dir, { recursive: true, force: true });
  }, 60_000);

  it('every event published during the run arrives, and its side effect is applied exactly once', async () => {
    bus = new AmqpBus({ url: broker.url, logger: silentLogger, reconnectMinMs: 100, reconnectMaxMs: 1000, confirmTimeoutMs: 3000 });
    const Effect = consumerDb.model('Effect', effectSchema, 'effects');
    let deliveries = 0;
    let skipped = 0;
    await bus.subscribe('outage', ['ticket.created'], async (e: EventEnvelope) => {
      deliveries++;
      const applied = await consumeOnce(consumerDb, 'outage', e, async (session) => {
        await Effect.updateOne({ _id: e.id }, { $inc: { count: 1 } }, { upsert: true, session });
      });
      if (!applied) skipped++;
    }, { prefetch: 16, retryDelayMs: 100 });
    relay = startOutboxRelay({ conn: producerDb, bus, logger: silentLogger, pollIntervalMs: 50, batchSize: 100, minBackoffMs: 100, maxBackoffMs: 1000 });

    const ids: string[] = [];
    let producing = true;
    const producer = (async () => {
      let i = 0;
      while (producing) {
        const e = await withOutbox(producerDb, scope, async (_s, emit) => emit({ type: 'ticket.created', data: { ticket: ticket(`tkt_${i++}`) } }));
        ids.push(e.id);
        await new Promise((r) => setTimeout(r, 15));
      }
    })();

    await new Promise((r) => setTimeout(r, 1000));
    const beforeOutage = ids.length;
    const t0 = Date.now();
    await broker.stop();
    const stoppedIn = Date.now() - t0;
    // While the broker is down a publish fails at once (nothing buffered in memory; the outbox keeps it).
    await new Promise((r) => setTimeout(r, 200));
    const tp = Date.now();
    const direct = await withOutbox(producerDb, scope, async (_s, emit) => emit({ type: 'ticket.created', data: { ticket: ticket('tkt_direct') } }));
    ids.push(direct.id); // the relay will deliver it after the restart
    await expect(bus.publish([direct])).rejects.toThrow(/disconnected/);
    expect(Date.now() - tp).toBeLessThan(100);
    await broker.start();
    const outageMs = Date.now() - t0;
    await new Promise((r) => setTimeout(r, 500));
    producing = false;
    await producer;

    const t1 = Date.now();
    await relay.drain(20_000);
    const deadline = Date.now() + 20_000;
    while ((await processedModel(consumerDb).countDocuments({ consumer: 'outage' })) < ids.length && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
    }
    const caughtUpMs = Date.now() - t1;

    const effects = await Effect.find().lean();
    const byId = new Map(effects.map((d) => [d._id as string, d.count as number]));
    const missing = ids.filter((id) => !byId.has(id));
    const twice = effects.filter((d) => d.count !== 1);
    console.log(
      `outage test: ${ids.length} events (${beforeOutage} before the stop), broker stopped in ${stoppedIn} ms, down ${outageMs} ms, ` +
        `caught up ${caughtUpMs} ms after the producer stopped; ${deliveries} deliveries, ${skipped} duplicates skipped by consumeOnce`,
    );
    expect(missing).toEqual([]);
    expect(twice).toEqual([]);
    expect(effects).toHaveLength(ids.length);
    expect(ids.length).toBeGreaterThan(beforeOutage); // events were also written while the broker was down
  }, 60_000);
});
