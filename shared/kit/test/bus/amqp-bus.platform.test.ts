import * as amqp from 'amqplib';
import { AmqpBus, ATTEMPT_HEADER, createBus } from '../../src/bus';
import { DELIVERY_LIMIT } from '../../src/bus/amqp-bus';
import { busContract } from './bus-contract';
import { envelope, silentLogger, waitFor } from './fixtures';
import { AMQP_URL, deleteTopology, describeAmqp, drainQueue, newBus, queueInfo, uniqueNames } from './amqp-helpers';

const url = AMQP_URL ?? '';
const names = uniqueNames();
const used = new Set<string>();
let n = 0;
const service = (name: string) => {
  const s = `${name}-${++n}`;
  used.add(s);
  return s;
};

describeAmqp('AmqpBus against RabbitMQ (AMQP_URL)', () => {
  afterAll(() => deleteTopology(url, names, [...used]));

  busContract('AmqpBus', {
    make: async () => {
      const bus = newBus(url, names);
      await bus.waitForConnection();
      return bus;
    },
    deadLetters: async (_bus, svc) => (await drainQueue(url, `${names.queuePrefix}.${svc}.dead`)).map((m) => JSON.parse(m.content.toString())),
    service,
  });

  describe('AmqpBus specifics', () => {
    let bus: AmqpBus;
    beforeAll(async () => {
      bus = newBus(url, names);
      await bus.waitForConnection();
    });
    afterAll(() => bus.close());

    it('createBus returns the AMQP bus for an url, with the documented default names', async () => {
      const b = createBus({ amqpUrl: 'amqp://127.0.0.1:1', logger: silentLogger });
      expect(b).toBeInstanceOf(AmqpBus);
      expect((b as AmqpBus).exchange).toBe('helpdesk.events');
      expect((b as AmqpBus).deadLetterExchange).toBe('helpdesk.events.dlx');
      expect((b as AmqpBus).queueNames('ticketing')).toEqual({ main: 'helpdesk.ticketing', retry: 'helpdesk.ticketing.retry', dead: 'helpdesk.ticketing.dead' });
      await b.close();
    });

    it('every queue is a quorum queue: a classic declaration of the same name is refused by the broker', async () => {
      const svc = service('quorum');
      await bus.subscribe(svc, ['ticket.closed'], async () => undefined);
      const conn = await amqp.connect(url);
      try {
        for (const q of [`${names.queuePrefix}.${svc}`, `${names.queuePrefix}.${svc}.retry`, `${names.queuePrefix}.${svc}.dead`]) {
          const ch = await conn.createChannel();
          ch.on('error', () => undefined);
          // Same name, classic arguments: PRECONDITION_FAILED (406) proves the queue is not classic.
          await expect(ch.assertQueue(q, { durable: true, arguments: { 'x-queue-type': 'classic' } })).rejects.toMatchObject({ code: 406 });
        }
      } finally {
        await conn.close();
      }
    });

    it('a classic queue left from before quorum queues is a start-up error naming the queue and what to do', async () => {
      const svc = service('classic-left');
      const conn = await amqp.connect(url);
      try {
        const ch = await conn.createChannel();
        await ch.assertQueue(`${names.queuePrefix}.${svc}`, { durable: true });
      } finally {
        await conn.close();
      }
      await expect(bus.subscribe(svc, ['ticket.closed'], async () => undefined)).rejects.toThrow(
        new RegExp(`queue ${names.queuePrefix}.${svc} exists with other arguments.*rabbitmqctl delete_queue`),
      );
    });

    it(`a message delivered ${DELIVERY_LIMIT} times without an ack (a consumer that dies each time) is dead-lettered, listed with the reason`, async () => {
      const svc = service('delivery-limit');
      await bus.subscribe(svc, ['ticket.closed'], async () => undefined);
      // Take the queue over with a consumer that never acks: every delivery is handed back as a crash would.
      await bus.close();
      bus = newBus(url, names);
      await bus.waitForConnection();
      const main = `${names.queuePrefix}.${svc}`;
      const e = envelope('ticket.closed');
      await bus.publish([e]);
      const conn = await amqp.connect(url);
      try {
        const ch = await conn.createChannel();
        for (let i = 0; i <= DELIVERY_LIMIT; i++) {
          let msg: amqp.GetMessage | false = false;
          const deadline = Date.now() + 3000;
          while (!(msg = await ch.get(main)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
          if (!msg) break; // dead-lettered by the broker
          ch.nack(msg, false, true);
        }
        const deadline = Date.now() + 5000;
        while ((await queueInfo(url, `${main}.dead`)).messageCount < 1 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      } finally {
        await conn.close();
      }
      const [record] = await bus.deadLetterQueue.list(svc);
      expect(record).toMatchObject({ eventId: e.id, error: expect.stringMatching(/^dead-lettered by RabbitMQ \(delivery_limit\): delivered 20 times without an acknowledgement/) });
      // Listing hands the dead letter back: it is still there after many lists.
      for (let i = 0; i < 3; i++) expect(await bus.deadLetterQueue.list(svc)).toHaveLength(1);
    });

    it('a dead letter is the persistent original: messageId = event id, type, attempt header', async () => {
      const svc = service('dead-props');
      let calls = 0;
      await bus.subscribe(svc, ['ticket.closed'], async () => {
        calls++;
        throw new Error('always');
      }, { maxAttempts: 2, retryDelayMs: 10 });
      const e = envelope('ticket.closed');
      await bus.publish([e]);
      await waitFor(() => calls === 2, 5000, 'two attempts');
      const dead = `${names.queuePrefix}.${svc}.dead`;
      const deadline = Date.now() + 3000;
      while ((await queueInfo(url, dead)).messageCount < 1 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      const [msg] = await drainQueue(url, dead);
      expect(JSON.parse(msg.content.toString())).toEqual(e);
      expect(msg.properties).toMatchObject({ messageId: e.id, type: 'ticket.closed', deliveryMode: 2, contentType: 'application/json' });
      expect(msg.properties.headers?.[ATTEMPT_HEADER]).toBe(2);
    });

    it('a subscribe made before the first connection gets exactly one consumer', async () => {
      const svc = service('early');
      const early = newBus(url, names);
      let got = 0;
      await early.subscribe(svc, ['ticket.created'], async () => void got++, { prefetch: 7 });
      expect(await queueInfo(url, `${names.queuePrefix}.${svc}`)).toEqual({ messageCount: 0, consumerCount: 1 });
      await early.publish([envelope('ticket.created')]);
      await waitFor(() => got === 1, 5000, 'delivery');
      await early.close();
      expect((await queueInfo(url, `${names.queuePrefix}.${svc}`)).consumerCount).toBe(0);
    });

    it('pipelines confirmed publishes: 2,000 events in batches of 100, all delivered', async () => {
      const got = new Set<string>();
      await bus.subscribe(service('fast'), ['ticket.created'], async (e) => void got.add(e.id), { prefetch: 200 });
      const events = Array.from({ length: 2000 }, () => envelope('ticket.created'));
      const t0 = performance.now();
      for (let i = 0; i < events.length; i += 100) await bus.publish(events.slice(i, i + 100));
      const ms = performance.now() - t0;
      console.log(`AmqpBus: 2000 events in batches of 100, confirmed in ${ms.toFixed(0)} ms (${Math.round(2000 / (ms / 1000))} events/s, consumer running)`);
      await waitFor(() => got.size === 2000, 15000, 'all deliveries');
    });

    it('rejects publish promptly when the broker cannot be reached (no buffering)', async () => {
      const down = newBus('amqp://guest:guest@127.0.0.1:1', names);
      const t0 = Date.now();
      await expect(down.publish([envelope()])).rejects.toThrow(/disconnected/);
      expect(Date.now() - t0).toBeLessThan(100);
      await down.close();
    });
  });
});
