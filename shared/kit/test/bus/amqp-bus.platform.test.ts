import { AmqpBus, ATTEMPT_HEADER, createBus } from '../../src/bus';
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
