import type { EventEnvelope } from '@helpdesk/contracts';
import { AmqpBus, ATTEMPT_HEADER, createBus, type ConsumeContext } from '../../src/bus';
import { envelope, silentLogger, waitFor } from './fixtures';
import { AMQP_URL, deleteTopology, describeAmqp, drainQueue, newBus, queueDepth, queueInfo, uniqueNames } from './amqp-helpers';

describeAmqp('AmqpBus against RabbitMQ (AMQP_URL)', () => {
  const url = AMQP_URL!;
  const names = uniqueNames();
  const services = ['a', 'b', 'c', 'flaky', 'broken', 'fast', 'early'];
  let bus: AmqpBus;

  beforeAll(async () => {
    bus = newBus(url, names);
    await bus.waitForConnection();
  });
  afterAll(async () => {
    await bus.close();
    await deleteTopology(url, names, services);
  });

  it('createBus returns the AMQP bus for an url, with the documented default names', async () => {
    const b = createBus({ amqpUrl: 'amqp://127.0.0.1:1', logger: silentLogger });
    expect(b).toBeInstanceOf(AmqpBus);
    expect((b as AmqpBus).exchange).toBe('helpdesk.events');
    expect((b as AmqpBus).queueNames('ticketing')).toEqual({ main: 'helpdesk.ticketing', retry: 'helpdesk.ticketing.retry', dead: 'helpdesk.ticketing.dead' });
    await b.close();
  });

  it('routes by topic pattern to durable per-service queues; the consumer gets an equal envelope', async () => {
    const got: Record<string, EventEnvelope[]> = { a: [], b: [], c: [] };
    await bus.subscribe('a', ['ticket.*'], async (e) => void got.a.push(e));
    await bus.subscribe('b', ['ticket.closed'], async (e) => void got.b.push(e));
    await bus.subscribe('c', ['customer.#'], async (e) => void got.c.push(e));
    const created = envelope('ticket.created');
    const closed = envelope('ticket.closed');
    await bus.publish([created, closed]);
    await waitFor(() => got.a.length === 2 && got.b.length === 1, 5000, 'deliveries');
    expect(got.a.map((e) => e.id).sort()).toEqual([created.id, closed.id].sort());
    expect(got.a.find((e) => e.id === created.id)).toEqual(created);
    expect(got.b.map((e) => e.id)).toEqual([closed.id]);
    await new Promise((r) => setTimeout(r, 100));
    expect(got.c).toEqual([]);
  });

  it('rejects a batch whose payload could not cross the wire, before anything is sent', async () => {
    const bad = envelope('ticket.created', { ticket: { ...(envelope().data.ticket as object), messageCount: 'many' } });
    await expect(bus.publish([envelope(), bad])).rejects.toThrow(/messageCount/);
  });

  it('retries a failing handler through the retry queue (attempt header, redelivered) then acks', async () => {
    const seen: ConsumeContext[] = [];
    await bus.subscribe('flaky', ['ticket.updated'], async (_e, ctx) => {
      seen.push(ctx);
      if (ctx.attempt < 3) throw new Error('flaky');
    }, { retryDelayMs: 50 });
    await bus.publish([envelope('ticket.updated')]);
    await waitFor(() => seen.length === 3, 5000, 'three attempts');
    expect(seen).toEqual([{ attempt: 1, redelivered: false }, { attempt: 2, redelivered: true }, { attempt: 3, redelivered: true }]);
    await new Promise((r) => setTimeout(r, 200));
    expect(seen).toHaveLength(3);
    expect(await queueDepth(url, `${names.queuePrefix}.flaky.dead`)).toBe(0);
  });

  it('dead-letters to <prefix>.<service>.dead after maxAttempts', async () => {
    let calls = 0;
    await bus.subscribe('broken', ['ticket.closed'], async () => {
      calls++;
      throw new Error('always');
    }, { maxAttempts: 3, retryDelayMs: 20 });
    const e = envelope('ticket.closed');
    await bus.publish([e]);
    await waitFor(() => calls === 3, 5000, 'three attempts');
    const dead = `${names.queuePrefix}.broken.dead`;
    const deadline = Date.now() + 3000;
    while ((await queueDepth(url, dead)) < 1 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    const msgs = await drainQueue(url, dead);
    expect(msgs).toHaveLength(1);
    expect(JSON.parse(msgs[0].content.toString())).toEqual(e);
    expect(msgs[0].properties.messageId).toBe(e.id);
    expect(msgs[0].properties.deliveryMode).toBe(2); // persistent
    expect(msgs[0].properties.headers?.[ATTEMPT_HEADER]).toBe(3);
    expect(calls).toBe(3);
  });

  it('pipelines confirmed publishes: 2,000 events in batches of 100, all delivered', async () => {
    const got = new Set<string>();
    await bus.subscribe('fast', ['ticket.created'], async (e) => void got.add(e.id), { prefetch: 200 });
    const events = Array.from({ length: 2000 }, () => envelope('ticket.created'));
    const t0 = performance.now();
    for (let i = 0; i < events.length; i += 100) await bus.publish(events.slice(i, i + 100));
    const ms = performance.now() - t0;
    console.log(`AmqpBus: 2000 events in batches of 100, confirmed in ${ms.toFixed(0)} ms (${Math.round(2000 / (ms / 1000))} events/s)`);
    await waitFor(() => got.size === 2000, 15000, 'all deliveries');
  });

  it('a subscribe made before the first connection gets exactly one consumer, with its prefetch', async () => {
    const early = newBus(url, names);
    let n = 0;
    await early.subscribe('early', ['ticket.created'], async () => void n++, { prefetch: 7 });
    expect(await queueInfo(url, `${names.queuePrefix}.early`)).toEqual({ messageCount: 0, consumerCount: 1 });
    await early.publish([envelope('ticket.created')]);
    await waitFor(() => n === 1, 5000, 'delivery');
    await early.close();
    expect((await queueInfo(url, `${names.queuePrefix}.early`)).consumerCount).toBe(0);
  });

  it('rejects publish promptly when the broker cannot be reached (no buffering)', async () => {
    const down = newBus('amqp://guest:guest@127.0.0.1:1', names);
    const t0 = Date.now();
    await expect(down.publish([envelope()])).rejects.toThrow(/disconnected/);
    expect(Date.now() - t0).toBeLessThan(100);
    await down.close();
  });
});
