import type { EventEnvelope } from '@helpdesk/contracts';
import { createBus, MemoryBus, type ConsumeContext } from '../../src/bus';
import { envelope, silentLogger, waitFor } from './fixtures';

describe('MemoryBus', () => {
  let bus: MemoryBus;
  beforeEach(() => {
    bus = createBus({ logger: silentLogger }) as MemoryBus;
  });
  afterEach(() => bus.close());

  it('is what createBus returns without an AMQP url', () => {
    expect(bus).toBeInstanceOf(MemoryBus);
  });

  it('routes by topic pattern (* one word, # zero or more) to every matching service queue', async () => {
    const got: Record<string, string[]> = { a: [], b: [], c: [] };
    await bus.subscribe('a', ['ticket.*'], async (e) => void got.a.push(e.type));
    await bus.subscribe('b', ['ticket.closed'], async (e) => void got.b.push(e.type));
    await bus.subscribe('c', ['customer.#'], async (e) => void got.c.push(e.type));
    await bus.publish([envelope('ticket.created'), envelope('ticket.closed')]);
    await bus.idle();
    expect(got).toEqual({ a: ['ticket.created', 'ticket.closed'], b: ['ticket.closed'], c: [] });
  });

  it('delivers asynchronously, never inside publish, and an equal copy of what crossed the wire', async () => {
    const got: EventEnvelope[] = [];
    await bus.subscribe('a', ['#'], async (e) => void got.push(e));
    const e = envelope();
    await bus.publish([e]);
    expect(got).toHaveLength(0);
    await bus.idle();
    expect(got[0]).toEqual(e);
    expect(got[0]).not.toBe(e);
  });

  it('does not deliver to a service that subscribed after the publish (like an unbound queue)', async () => {
    await bus.publish([envelope()]);
    const got: string[] = [];
    await bus.subscribe('late', ['#'], async (e) => void got.push(e.id));
    await bus.idle();
    expect(got).toEqual([]);
  });

  it('rejects the whole batch when a payload could not cross the wire or the catalog refuses it', async () => {
    const got: string[] = [];
    await bus.subscribe('a', ['#'], async (e) => void got.push(e.id));
    const withDate = envelope('ticket.created', { ticket: { ...envelope().data.ticket as object, createdAt: new Date() } });
    // JSON turns the Date into a string, which the schema accepts: this one crosses.
    await expect(bus.publish([withDate])).resolves.toBeUndefined();
    const bigint = envelope('ticket.created', { ticket: { ...envelope().data.ticket as object, messageCount: 1n } });
    await expect(bus.publish([envelope(), bigint])).rejects.toThrow(/BigInt/);
    const undefinedField = envelope('ticket.created', { ticket: { ...envelope().data.ticket as object, customerId: undefined } });
    await expect(bus.publish([undefinedField])).rejects.toThrow(/customerId/);
    await expect(bus.publish([{ ...envelope(), type: 'ticket.exploded' }])).rejects.toThrow(/unknown event type/);
    await expect(bus.publish([{ ...envelope(), id: 'not-an-id' }])).rejects.toThrow();
    await bus.idle();
    expect(got).toEqual([withDate.id]);
  });

  it('retries a failing handler with backoff, then succeeds (attempt and redelivered flags)', async () => {
    const seen: Array<ConsumeContext & { at: number }> = [];
    await bus.subscribe('a', ['#'], async (_e, ctx) => {
      seen.push({ ...ctx, at: Date.now() });
      if (ctx.attempt < 3) throw new Error('flaky');
    }, { retryDelayMs: 20 });
    await bus.publish([envelope()]);
    await bus.idle();
    expect(seen.map(({ attempt, redelivered }) => ({ attempt, redelivered }))).toEqual([
      { attempt: 1, redelivered: false }, { attempt: 2, redelivered: true }, { attempt: 3, redelivered: true },
    ]);
    expect(seen[1].at - seen[0].at).toBeGreaterThanOrEqual(18);
    expect(seen[2].at - seen[1].at).toBeGreaterThanOrEqual(38);
    expect(bus.deadLetters).toEqual([]);
  });

  it('dead-letters after maxAttempts and keeps the event inspectable; other services are unaffected', async () => {
    let calls = 0;
    const ok: string[] = [];
    await bus.subscribe('broken', ['ticket.*'], async () => {
      calls++;
      throw new Error('always');
    }, { maxAttempts: 3, retryDelayMs: 1 });
    await bus.subscribe('fine', ['ticket.*'], async (e) => void ok.push(e.id));
    const e = envelope();
    await bus.publish([e]);
    await bus.idle();
    expect(calls).toBe(3);
    expect(ok).toEqual([e.id]);
    expect(bus.deadLetters).toEqual([{ service: 'broken', event: e, attempts: 3, error: 'always' }]);
  });

  it('keeps at most prefetch deliveries in flight per consumer', async () => {
    let inFlight = 0;
    let peak = 0;
    await bus.subscribe('a', ['#'], async () => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      await new Promise((r) => setTimeout(r, 5));
      inFlight--;
    }, { prefetch: 3 });
    await bus.publish(Array.from({ length: 20 }, () => envelope()));
    await bus.idle();
    expect(peak).toBe(3);
  });

  it('shares one service queue between competing consumers (round robin), each event handled once', async () => {
    const a: string[] = [];
    const b: string[] = [];
    await bus.subscribe('svc', ['#'], async (e) => void a.push(e.id), { prefetch: 1 });
    await bus.subscribe('svc', ['#'], async (e) => void b.push(e.id), { prefetch: 1 });
    await bus.publish(Array.from({ length: 10 }, () => envelope()));
    await waitFor(() => a.length + b.length === 10);
    expect(a.length).toBeGreaterThan(0);
    expect(b.length).toBeGreaterThan(0);
    expect(new Set([...a, ...b]).size).toBe(10);
  });

  it('refuses publish and subscribe after close', async () => {
    await bus.close();
    await expect(bus.publish([envelope()])).rejects.toThrow(/closed/);
    await expect(bus.subscribe('a', ['#'], async () => undefined)).rejects.toThrow(/closed/);
  });
});
