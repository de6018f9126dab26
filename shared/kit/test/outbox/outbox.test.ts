import mongoose from 'mongoose';
import type { EventEnvelope } from '@helpdesk/contracts';
import { MemoryBus, type EventBus } from '../../src/bus';
import { consumeOnce, DEFAULT_RELAY_LEASE_MS, outboxModel, processedModel, startOutboxRelay, withOutbox, type EventScope, type OutboxRelay } from '../../src/outbox';
import { envelope, silentLogger, TEAM, ticket, waitFor } from '../bus/fixtures';
import { describeDb, startMongo, type TestMongo } from './mongo';

const scope: EventScope = { teamId: TEAM, mode: 'test', requestId: 'req_1', actor: { type: 'member', id: 'mem_1' } };

const noteSchema = new mongoose.Schema({ _id: String, title: String, count: Number }, { versionKey: false });
const notes = (conn: mongoose.Connection) => conn.models.Note ?? conn.model('Note', noteSchema, 'notes');

/** A bus that fails while `down` is true, like a broker outage. */
class FlakyBus implements EventBus {
  down = false;
  publishCalls = 0;
  constructor(private readonly inner: EventBus) {}
  async publish(events: EventEnvelope[]) {
    this.publishCalls++;
    if (this.down) throw new Error('broker down');
    return this.inner.publish(events);
  }
  subscribe: EventBus['subscribe'] = (...a) => this.inner.subscribe(...a);
  close = () => this.inner.close();
}

describeDb('outbox (embedded MongoDB)', () => {
  let mongo: TestMongo;
  beforeAll(async () => {
    mongo = await startMongo();
  });
  afterAll(() => mongo.close());

  describe('withOutbox + relay', () => {
    let conn: mongoose.Connection;
    let bus: MemoryBus;
    let got: EventEnvelope[];
    const relays: OutboxRelay[] = [];
    beforeEach(async () => {
      conn = await mongo.connect(`outbox_${Math.random().toString(36).slice(2)}`);
      bus = new MemoryBus(silentLogger);
      got = [];
      await bus.subscribe('observer', ['#'], async (e) => void got.push(e));
    });
    afterEach(async () => {
      for (const r of relays.splice(0)) await r.stop();
      await bus.close();
    });

    it('commits the change and its events together; the relay publishes them (kicked at commit) and marks them published', async () => {
      const relay = startOutboxRelay({ conn, bus, logger: silentLogger, pollIntervalMs: 60_000 });
      relays.push(relay);
      const t0 = Date.now();
      const result = await withOutbox(conn, scope, async (session, emit) => {
        await notes(conn).create([{ _id: 'n1', title: 'a' }], { session });
        const e = emit({ type: 'ticket.created', data: { ticket: ticket('tkt_1') } });
        emit({ type: 'ticket.closed', data: { ticket: { ...ticket('tkt_1'), status: 'closed' }, previousStatus: 'new' } });
        return e;
      });
      expect(result).toMatchObject({ type: 'ticket.created', version: 1, teamId: TEAM, mode: 'test', requestId: 'req_1', actor: { type: 'member', id: 'mem_1' } });
      expect(result.id).toMatch(/^evt_[A-Za-z0-9]+$/);
      await waitFor(() => got.length === 2, 3000, 'published events'); // poll interval is 60 s: only the kick can do this
      expect(Date.now() - t0).toBeLessThan(3000);
      expect(got.map((e) => e.type)).toEqual(['ticket.created', 'ticket.closed']);
      expect(got[0]).toEqual(result);
      await relay.drain();
      const rows = await outboxModel(conn).find().lean();
      expect(rows).toHaveLength(2);
      for (const r of rows) expect(r.publishedAt).toBeInstanceOf(Date);
    });

    it("an event emitted with its own scope carries that scope's team, partition, request id and actor; the others the unit's", async () => {
      const relay = startOutboxRelay({ conn, bus, logger: silentLogger, pollIntervalMs: 60_000 });
      relays.push(relay);
      const other = { teamId: '22222222-2222-4222-8222-222222222222', mode: 'live' as const, requestId: 'req_other', actor: { type: 'system' as const, id: null } };
      await withOutbox(conn, scope, async (_s, emit) => {
        emit({ type: 'ticket.created', data: { ticket: ticket('tkt_own') } }, other);
        emit({ type: 'ticket.created', data: { ticket: ticket('tkt_unit') } });
      });
      await waitFor(() => got.length === 2, 3000, 'published events');
      const pick = (e: EventEnvelope) => ({ teamId: e.teamId, mode: e.mode, requestId: e.requestId, actor: e.actor });
      expect(got.map(pick)).toEqual([other, scope]);
    });

    it('rolls back the events with the change when fn throws (nothing published)', async () => {
      relays.push(startOutboxRelay({ conn, bus, logger: silentLogger, pollIntervalMs: 20 }));
      await expect(withOutbox(conn, scope, async (session, emit) => {
        await notes(conn).create([{ _id: 'n2', title: 'b' }], { session });
        emit({ type: 'ticket.created', data: { ticket: ticket() } });
        throw new Error('rule violated');
      })).rejects.toThrow('rule violated');
      expect(await notes(conn).countDocuments({ _id: 'n2' })).toBe(0);
      expect(await outboxModel(conn).countDocuments()).toBe(0);
      await new Promise((r) => setTimeout(r, 100));
      await bus.idle();
      expect(got).toEqual([]);
    });

    it('emit throws at once on a payload the catalog refuses', async () => {
      await expect(withOutbox(conn, scope, async (_s, emit) => {
        emit({ type: 'ticket.created', data: { ticket: { ...ticket(), status: 'exploded' } } as never });
      })).rejects.toThrow(/status/);
      expect(await outboxModel(conn).countDocuments()).toBe(0);
    });

    it('publishes in insertion order, in batches of batchSize', async () => {
      const inner = new FlakyBus(bus);
      for (let i = 0; i < 25; i++) {
        await withOutbox(conn, scope, async (_s, emit) => void emit({ type: 'ticket.created', data: { ticket: ticket(`tkt_${i}`) } }));
      }
      const relay = startOutboxRelay({ conn, bus: inner, logger: silentLogger, batchSize: 10 });
      relays.push(relay);
      await relay.drain();
      await bus.idle();
      expect(got.map((e) => (e.data as { ticket: { id: string } }).ticket.id)).toEqual(Array.from({ length: 25 }, (_, i) => `tkt_${i}`));
      expect(inner.publishCalls).toBe(3);
    });

    it('a broker outage delays events, never loses them (backoff, then everything once)', async () => {
      const flaky = new FlakyBus(bus);
      flaky.down = true;
      const relay = startOutboxRelay({ conn, bus: flaky, logger: silentLogger, pollIntervalMs: 20, minBackoffMs: 20, maxBackoffMs: 80 });
      relays.push(relay);
      for (let i = 0; i < 5; i++) await withOutbox(conn, scope, async (_s, emit) => void emit({ type: 'ticket.created', data: { ticket: ticket(`tkt_${i}`) } }));
      await new Promise((r) => setTimeout(r, 300));
      const callsDuringOutage = flaky.publishCalls;
      expect(callsDuringOutage).toBeGreaterThanOrEqual(2);
      expect(callsDuringOutage).toBeLessThan(15); // backing off, not spinning
      expect(got).toEqual([]);
      flaky.down = false;
      await relay.drain(5000);
      await bus.idle();
      expect(got.map((e) => (e.data as { ticket: { id: string } }).ticket.id)).toEqual(['tkt_0', 'tkt_1', 'tkt_2', 'tkt_3', 'tkt_4']);
    });

    it('two relay replicas on one database do not double-publish (lease)', async () => {
      const a = startOutboxRelay({ conn, bus, logger: silentLogger, pollIntervalMs: 10, batchSize: 5 });
      const conn2 = await mongo.connect(conn.name);
      const b = startOutboxRelay({ conn: conn2, bus, logger: silentLogger, pollIntervalMs: 10, batchSize: 5 });
      relays.push(a, b);
      const ids: string[] = [];
      for (let i = 0; i < 40; i++) {
        const e = await withOutbox(i % 2 ? conn : conn2, scope, async (_s, emit) => emit({ type: 'ticket.created', data: { ticket: ticket(`tkt_${i}`) } }));
        ids.push(e.id);
      }
      await a.drain();
      await b.drain();
      await bus.idle();
      expect(got.map((e) => e.id).sort()).toEqual([...ids].sort());
    });

    it('a crashed lease holder delays the other replica until its lease expires, never blocks it', async () => {
      // A holder that died without handing the lease back.
      await conn.collection('outbox_lease').insertOne({ _id: 'outbox-relay' as never, owner: 'relay_dead', leaseUntil: new Date(Date.now() + 400) });
      const relay = startOutboxRelay({ conn, bus, logger: silentLogger, pollIntervalMs: 20 });
      relays.push(relay);
      const t0 = Date.now();
      await withOutbox(conn, scope, async (_s, emit) => void emit({ type: 'ticket.created', data: { ticket: ticket() } }));
      await new Promise((r) => setTimeout(r, 200));
      expect(got).toEqual([]);
      await waitFor(() => got.length === 1, 3000, 'takeover');
      expect(Date.now() - t0).toBeGreaterThanOrEqual(350);
    });

    it('a holder SIGKILLed right after renewing (default lease and poll) is replaced within 3 s', async () => {
      // The worst case: the dead holder's last renewal had just set the full lease.
      await conn.collection('outbox_lease').insertOne({ _id: 'outbox-relay' as never, owner: 'relay_killed', leaseUntil: new Date(Date.now() + DEFAULT_RELAY_LEASE_MS) });
      const t0 = Date.now();
      relays.push(startOutboxRelay({ conn, bus, logger: silentLogger }));
      await withOutbox(conn, scope, async (_s, emit) => void emit({ type: 'ticket.created', data: { ticket: ticket('tkt_after_kill') } }));
      await waitFor(() => got.length === 1, 3000, 'takeover');
      expect(Date.now() - t0).toBeLessThan(3000);
    });

    it('a relay that can no longer renew (its process gone, lease never handed back) is replaced within 3 s', async () => {
      const conn2 = await mongo.connect(conn.name);
      const a = startOutboxRelay({ conn: conn2, bus, logger: silentLogger, pollIntervalMs: 20 });
      await withOutbox(conn2, scope, async (_s, emit) => void emit({ type: 'ticket.created', data: { ticket: ticket('tkt_a') } }));
      await a.drain();
      await bus.idle();
      // Dies holding the lease: its connection is gone, so neither its heartbeat nor stop() reaches the database.
      const held = await conn.collection('outbox_lease').findOne({ _id: 'outbox-relay' as never });
      expect(held?.owner).toMatch(/^relay_/);
      await conn2.close(true);
      const b = startOutboxRelay({ conn, bus, logger: silentLogger, pollIntervalMs: 20 });
      relays.push(b);
      const t0 = Date.now();
      await withOutbox(conn, scope, async (_s, emit) => void emit({ type: 'ticket.created', data: { ticket: ticket('tkt_b') } }));
      await waitFor(() => got.length === 2, 3000, 'takeover after the holder died');
      expect(Date.now() - t0).toBeLessThan(3000);
      expect(got.map((e) => (e.data as { ticket: { id: string } }).ticket.id)).toEqual(['tkt_a', 'tkt_b']);
      await a.stop();
    });

    it('a batch longer than the lease keeps it (heartbeat): a second replica publishes nothing meanwhile', async () => {
      const leaseMs = 300;
      /** Takes 4 leases to confirm each batch. */
      class SlowBus extends FlakyBus {
        override async publish(events: EventEnvelope[]) {
          await new Promise((r) => setTimeout(r, 4 * leaseMs));
          return super.publish(events);
        }
      }
      for (let i = 0; i < 3; i++) await withOutbox(conn, scope, async (_s, emit) => void emit({ type: 'ticket.created', data: { ticket: ticket(`tkt_${i}`) } }));
      const slow = new SlowBus(bus);
      const a = startOutboxRelay({ conn, bus: slow, logger: silentLogger, pollIntervalMs: 20, leaseMs });
      await waitFor(() => slow.publishCalls === 1, 3000, 'first batch under way');
      const conn2 = await mongo.connect(conn.name);
      const other = new FlakyBus(bus);
      const b = startOutboxRelay({ conn: conn2, bus: other, logger: silentLogger, pollIntervalMs: 10, leaseMs });
      relays.push(a, b);
      await a.drain(5000);
      await bus.idle();
      expect(other.publishCalls).toBe(0);
      expect(slow.publishCalls).toBe(1);
      expect(got.map((e) => (e.data as { ticket: { id: string } }).ticket.id)).toEqual(['tkt_0', 'tkt_1', 'tkt_2']);
    });

    it('stop() hands the lease back: another replica publishes at once', async () => {
      const a = startOutboxRelay({ conn, bus, logger: silentLogger, pollIntervalMs: 20, leaseMs: 60_000 });
      await withOutbox(conn, scope, async (_s, emit) => void emit({ type: 'ticket.created', data: { ticket: ticket('tkt_a') } }));
      await a.drain();
      await a.stop();
      const b = startOutboxRelay({ conn, bus, logger: silentLogger, pollIntervalMs: 20, leaseMs: 60_000 });
      relays.push(b);
      await withOutbox(conn, scope, async (_s, emit) => void emit({ type: 'ticket.created', data: { ticket: ticket('tkt_b') } }));
      await b.drain(2000);
      await bus.idle();
      expect(got.map((e) => (e.data as { ticket: { id: string } }).ticket.id)).toEqual(['tkt_a', 'tkt_b']);
    });

    it('an idle relay hands its lease back and renews nothing; the next commit still goes out at once (docs/adr/0070)', async () => {
      const leaseMs = 300;
      const relay = startOutboxRelay({ conn, bus, logger: silentLogger, leaseMs }); // default idle poll: 30 s
      relays.push(relay);
      await withOutbox(conn, scope, async (_s, emit) => void emit({ type: 'ticket.created', data: { ticket: ticket('tkt_1') } }));
      await waitFor(() => got.length === 1, 3000, 'first event');
      const lease = () => conn.collection('outbox_lease').findOne({ _id: 'outbox-relay' as never });
      const until = Date.now() + 3000;
      while ((await lease())?.owner !== null && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
      const idle = await lease();
      expect(idle?.owner).toBeNull();
      await new Promise((r) => setTimeout(r, 4 * leaseMs));
      expect(await lease()).toEqual(idle); // no renewal, no claim while nothing happens
      const t0 = Date.now();
      await withOutbox(conn, scope, async (_s, emit) => void emit({ type: 'ticket.created', data: { ticket: ticket('tkt_2') } }));
      await waitFor(() => got.length === 2, 3000, 'second event');
      expect(Date.now() - t0).toBeLessThan(3000);
    });

    it("rows waiting behind another replica's lease go out when it ends, without waiting for the idle poll", async () => {
      const leaseMs = 600;
      // Another replica holds the lease (and then dies: it is never renewed).
      await conn.collection('outbox_lease').insertOne({ _id: 'outbox-relay' as never, owner: 'relay_other', leaseUntil: new Date(Date.now() + 1500) });
      const relay = startOutboxRelay({ conn, bus, logger: silentLogger, leaseMs }); // default idle poll: 30 s
      relays.push(relay);
      const t0 = Date.now();
      await withOutbox(conn, scope, async (_s, emit) => void emit({ type: 'ticket.created', data: { ticket: ticket('tkt_waiting') } }));
      await waitFor(() => got.length === 1, 6000, 'published after the other lease ended');
      expect(Date.now() - t0).toBeGreaterThanOrEqual(1000);
      expect(Date.now() - t0).toBeLessThan(6000);
    });

    it('the published rows carry a 7-day TTL index', async () => {
      await outboxModel(conn).init();
      const idx = await outboxModel(conn).collection.indexes();
      expect(idx.find((i) => i.name === 'published_ttl')?.expireAfterSeconds).toBe(7 * 24 * 3600);
    });
  });

  describe('consumeOnce', () => {
    let conn: mongoose.Connection;
    beforeAll(async () => {
      conn = await mongo.connect('consume_once');
    });

    it('applies the side effect once per (consumer, event id), in the same transaction as the record', async () => {
      const e = envelope();
      const apply = (consumer: string) => consumeOnce(conn, consumer, e, async (session) => {
        await notes(conn).updateOne({ _id: 'counter' }, { $inc: { count: 1 } }, { upsert: true, session });
      });
      expect(await apply('game')).toBe(true);
      expect(await apply('game')).toBe(false);
      expect(await apply('notifications')).toBe(true); // another consumer has its own record
      expect((await notes(conn).findById('counter').lean())?.count).toBe(2);
      expect(await processedModel(conn).countDocuments({ eventId: e.id })).toBe(2);
    });

    it('records nothing when the handler throws, so the retry applies it', async () => {
      const e = envelope();
      await expect(consumeOnce(conn, 'game', e, async (session) => {
        await notes(conn).create([{ _id: 'half', title: 'x' }], { session });
        throw new Error('boom');
      })).rejects.toThrow('boom');
      expect(await notes(conn).countDocuments({ _id: 'half' })).toBe(0);
      expect(await consumeOnce(conn, 'game', e, async () => undefined)).toBe(true);
    });

    it('concurrent deliveries of one event: exactly one applies', async () => {
      const e = envelope();
      let applied = 0;
      const results = await Promise.all(Array.from({ length: 5 }, () => consumeOnce(conn, 'race', e, async (session) => {
        await notes(conn).updateOne({ _id: 'race' }, { $inc: { count: 1 } }, { upsert: true, session });
        applied++;
      })));
      expect(results.filter(Boolean)).toHaveLength(1);
      expect((await notes(conn).findById('race').lean())?.count).toBe(1);
      expect(applied).toBeGreaterThanOrEqual(1);
    });
  });
});
