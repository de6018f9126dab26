import type { EventEnvelope } from '@helpdesk/contracts';
import { createBus, MemoryBus, retryDelay, type EventBus } from '../../src/bus';
import { busContract } from './bus-contract';
import { envelope, silentLogger } from './fixtures';

busContract('MemoryBus', {
  make: async () => new MemoryBus(silentLogger),
  deadLetters: async (bus, service) => (bus as MemoryBus).deadLetters.filter((d) => d.service === service).map((d) => d.event),
  service: (name) => name,
});

describe('MemoryBus specifics', () => {
  let bus: MemoryBus;
  beforeEach(() => {
    bus = createBus({ logger: silentLogger }) as MemoryBus;
  });
  afterEach(() => bus.close());

  it('is what createBus returns without an AMQP url', () => {
    expect(bus).toBeInstanceOf(MemoryBus);
  });

  it('delivers asynchronously, never inside publish; idle() waits for deliveries and retries', async () => {
    const got: EventEnvelope[] = [];
    let failures = 0;
    await bus.subscribe('a', ['#'], async (e, ctx) => {
      if (ctx.attempt === 1 && failures++ === 0) throw new Error('once');
      got.push(e);
    }, { retryDelayMs: 5 });
    await bus.publish([envelope(), envelope()]);
    expect(got).toHaveLength(0);
    await bus.idle();
    expect(got).toHaveLength(2);
  });

  it('keeps dead letters with the service, the attempts and the error', async () => {
    await bus.subscribe('broken', ['#'], async () => {
      throw new Error('always');
    }, { maxAttempts: 2, retryDelayMs: 1 });
    const e = envelope();
    await bus.publish([e]);
    await bus.idle();
    expect(bus.deadLetters).toEqual([{ service: 'broken', event: e, attempts: 2, error: 'always' }]);
  });

  it('local mode: every service subscribes at start-up, then one publish reaches them all', async () => {
    const buses: EventBus = bus;
    const got: string[] = [];
    for (const s of ['ticketing', 'game', 'notifications', 'webhooks']) await buses.subscribe(s, ['ticket.#'], async () => void got.push(s));
    await buses.publish([envelope('ticket.closed')]);
    await bus.idle();
    expect(got.sort()).toEqual(['game', 'notifications', 'ticketing', 'webhooks']);
  });
});

describe('retry schedule', () => {
  it('doubles from the base delay and caps at 60 s', () => {
    expect([1, 2, 3, 4].map((n) => retryDelay(n, 1000))).toEqual([1000, 2000, 4000, 8000]);
    expect(retryDelay(20, 1000)).toBe(60_000);
  });
});
