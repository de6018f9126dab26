import type { EventEnvelope } from '@helpdesk/contracts';
import type { ConsumeContext, EventBus } from '../../src/bus';
import { envelope, ticket, waitFor } from './fixtures';

export interface BusHarness {
  /** A fresh bus (closed by the contract after each test). */
  make(): Promise<EventBus>;
  /** Envelopes dead-lettered for `service`. */
  deadLetters(bus: EventBus, service: string): Promise<unknown[]>;
  /** Service names must be unique per test (queues outlive a bus on a broker). */
  service(name: string): string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * What a publisher and a consumer see, whichever bus they run on: the same tests run against
 * MemoryBus (unit) and AmqpBus (platform, real RabbitMQ).
 */
export function busContract(name: string, h: BusHarness): void {
  describe(`EventBus contract: ${name}`, () => {
    let bus: EventBus;
    beforeEach(async () => {
      bus = await h.make();
    });
    afterEach(() => bus.close());

    it('routes by topic pattern (* one word, # zero or more) to every matching service queue', async () => {
      const [a, b, c] = [h.service('route-a'), h.service('route-b'), h.service('route-c')];
      const got: Record<string, string[]> = { a: [], b: [], c: [] };
      await bus.subscribe(a, ['ticket.*'], async (e) => void got.a.push(e.type));
      await bus.subscribe(b, ['ticket.closed'], async (e) => void got.b.push(e.type));
      await bus.subscribe(c, ['customer.#'], async (e) => void got.c.push(e.type));
      await bus.publish([envelope('ticket.created'), envelope('ticket.closed')]);
      await waitFor(() => got.a.length === 2 && got.b.length === 1, 5000, 'deliveries');
      await sleep(50);
      expect(got.a.sort()).toEqual(['ticket.closed', 'ticket.created']);
      expect(got).toMatchObject({ b: ['ticket.closed'], c: [] });
    });

    it('delivers an equal copy of the envelope (what crossed the wire)', async () => {
      const got: EventEnvelope[] = [];
      await bus.subscribe(h.service('copy'), ['#'], async (e) => void got.push(e));
      const e = envelope();
      await bus.publish([e]);
      await waitFor(() => got.length === 1, 5000, 'delivery');
      expect(got[0]).toEqual(e);
      expect(got[0]).not.toBe(e);
    });

    it('hands every handler a frozen event: a write into it throws, every other queue reads it as published', async () => {
      const [writer, reader] = [h.service('frozen-writer'), h.service('frozen-reader')];
      const refused: string[] = [];
      const read: EventEnvelope[] = [];
      await bus.subscribe(writer, ['#'], async (e) => {
        for (const write of [() => ((e as { type: string }).type = 'x.y'), () => ((e.data as { ticket: { title: string } }).ticket.title = 'changed'), () => ((e.actor as { id: string | null }).id = 'x')]) {
          try {
            write();
          } catch (err) {
            refused.push((err as Error).constructor.name);
          }
        }
      });
      await bus.subscribe(reader, ['#'], async (e) => void read.push(e));
      const e = envelope('ticket.created');
      await bus.publish([e]);
      await waitFor(() => refused.length === 3 && read.length === 1, 5000, 'deliveries');
      expect(refused).toEqual(['TypeError', 'TypeError', 'TypeError']);
      expect(read[0]).toEqual(e);
    });

    it('does not deliver to a service that subscribed after the publish (an unbound queue)', async () => {
      await bus.publish([envelope()]);
      const got: string[] = [];
      await bus.subscribe(h.service('late'), ['#'], async (e) => void got.push(e.id));
      await sleep(100);
      expect(got).toEqual([]);
    });

    it('rejects the whole batch when a payload could not cross the wire or the catalog refuses it', async () => {
      const got: string[] = [];
      await bus.subscribe(h.service('wire'), ['#'], async (e) => void got.push(e.id));
      const withDate = envelope('ticket.created', { ticket: { ...ticket(), createdAt: new Date() } });
      await bus.publish([withDate]); // a Date becomes an ISO string, which the schema accepts: it crosses
      const bigint = envelope('ticket.created', { ticket: { ...ticket(), messageCount: 1n } });
      await expect(bus.publish([envelope(), bigint])).rejects.toThrow(/BigInt/);
      await expect(bus.publish([envelope('ticket.created', { ticket: { ...ticket(), customerId: undefined } })])).rejects.toThrow(/customerId/);
      await expect(bus.publish([{ ...envelope(), type: 'ticket.exploded' }])).rejects.toThrow(/unknown event type/);
      await expect(bus.publish([{ ...envelope(), id: 'not-an-id' }])).rejects.toThrow();
      await waitFor(() => got.length === 1, 5000, 'the valid event');
      await sleep(100);
      expect(got).toEqual([withDate.id]);
    });

    it('retries a failing handler with growing delays, then acks (attempt, redelivered)', async () => {
      const seen: Array<ConsumeContext & { at: number }> = [];
      await bus.subscribe(h.service('flaky'), ['#'], async (_e, ctx) => {
        seen.push({ ...ctx, at: Date.now() });
        if (ctx.attempt < 3) throw new Error('flaky');
      }, { retryDelayMs: 40 });
      await bus.publish([envelope()]);
      await waitFor(() => seen.length === 3, 5000, 'three attempts');
      await sleep(150);
      expect(seen.map(({ attempt, redelivered }) => ({ attempt, redelivered }))).toEqual([
        { attempt: 1, redelivered: false }, { attempt: 2, redelivered: true }, { attempt: 3, redelivered: true },
      ]);
      expect(seen[1].at - seen[0].at).toBeGreaterThanOrEqual(35);
      expect(seen[2].at - seen[1].at).toBeGreaterThanOrEqual(75);
    });

    it('dead-letters after maxAttempts; other services still get the event', async () => {
      const [broken, fine] = [h.service('broken'), h.service('fine')];
      let calls = 0;
      const ok: string[] = [];
      await bus.subscribe(broken, ['ticket.*'], async () => {
        calls++;
        throw new Error('always');
      }, { maxAttempts: 3, retryDelayMs: 10 });
      await bus.subscribe(fine, ['ticket.*'], async (e) => void ok.push(e.id));
      const e = envelope();
      await bus.publish([e]);
      await waitFor(() => calls === 3, 5000, 'three attempts');
      let dead: unknown[] = [];
      const deadline = Date.now() + 3000;
      while (dead.length === 0 && Date.now() < deadline) {
        dead = await h.deadLetters(bus, broken);
        if (!dead.length) await sleep(50);
      }
      expect(dead).toEqual([e]);
      expect(ok).toEqual([e.id]);
      await sleep(100);
      expect(calls).toBe(3);
    });

    it('keeps at most prefetch deliveries in flight per consumer', async () => {
      let inFlight = 0;
      let peak = 0;
      let done = 0;
      await bus.subscribe(h.service('prefetch'), ['#'], async () => {
        inFlight++;
        peak = Math.max(peak, inFlight);
        await sleep(10);
        inFlight--;
        done++;
      }, { prefetch: 3 });
      await bus.publish(Array.from({ length: 20 }, () => envelope()));
      await waitFor(() => done === 20, 5000, 'all handled');
      expect(peak).toBe(3);
    });

    it('shares one service queue between competing consumers: each event handled once', async () => {
      const svc = h.service('shared');
      const a: string[] = [];
      const b: string[] = [];
      const slow = (into: string[]) => async (e: EventEnvelope) => {
        await sleep(5);
        into.push(e.id);
      };
      await bus.subscribe(svc, ['#'], slow(a), { prefetch: 1 });
      await bus.subscribe(svc, ['#'], slow(b), { prefetch: 1 });
      await bus.publish(Array.from({ length: 10 }, () => envelope()));
      await waitFor(() => a.length + b.length === 10, 5000, 'all handled');
      await sleep(50);
      expect(a.length).toBeGreaterThan(0);
      expect(b.length).toBeGreaterThan(0);
      expect(new Set([...a, ...b]).size).toBe(10);
      expect(a.length + b.length).toBe(10);
    });

    it('refuses publish and subscribe after close', async () => {
      await bus.close();
      await expect(bus.publish([envelope()])).rejects.toThrow(/closed/);
      await expect(bus.subscribe(h.service('closed'), ['#'], async () => undefined)).rejects.toThrow(/closed/);
    });
  });
}
