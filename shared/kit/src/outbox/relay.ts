import { randomBytes } from 'node:crypto';
import type mongoose from 'mongoose';
import type { EventEnvelope } from '@helpdesk/contracts';
import type { BusLogger, EventBus } from '../bus/types';
import { outboxBacklog, outboxOldestAge } from '../metrics';
import { withoutTracing } from '../telemetry/propagation';
import { leaseModel, outboxModel } from './models';
import { registerKick } from './with-outbox';

export interface OutboxRelay {
  /** Publish now (called by `withOutbox` after each commit on the same connection). */
  kick(): void;
  /** Resolves when no unpublished row is left (for tests); rejects after `timeoutMs` (default 10 s). */
  drain(timeoutMs?: number): Promise<void>;
  /** Stops polling, lets the batch in progress finish and hands the lease back. */
  stop(): Promise<void>;
}

export interface OutboxRelayOptions {
  conn: mongoose.Connection;
  bus: EventBus;
  /** The service whose outbox this is: the publisher the in-process bus checks ownership with, and the metrics' `service` label (default the database name). */
  service?: string;
  logger: BusLogger;
  /**
   * The poll while idle, for rows no commit here announced: those a process wrote and died before
   * waking its relay (default 30 s; a restarted process's relay looks at once). Work wakes the relay:
   * each commit on this connection kicks it, and a replica whose rows wait on another's lease looks
   * again every `leaseMs / 3` until they are out (docs/adr/0070).
   */
  pollIntervalMs?: number;
  /** Events per `bus.publish` (default 100). */
  batchSize?: number;
  /**
   * How long the lease lasts without renewal; another replica takes over after it (default 2 s,
   * docs/adr/0057). The holder renews it every `leaseMs / 3` on a timer of its own, batch or no batch.
   */
  leaseMs?: number;
  /** Backoff after a failed publish: doubles from `minBackoffMs` (250) to `maxBackoffMs` (30 s). */
  minBackoffMs?: number;
  maxBackoffMs?: number;
}

const LEASE_ID = 'outbox-relay';
/** Default lease: a SIGKILLed holder is replaced within this time plus one poll (docs/adr/0057). */
export const DEFAULT_RELAY_LEASE_MS = 2_000;
/** Default poll while idle (docs/adr/0070). */
export const DEFAULT_RELAY_IDLE_POLL_MS = 30_000;
/** After its last batch the holder keeps the lease and looks this often for a while (a burst's next rows), then hands it back. */
const BUSY_POLL_MS = 500;

/**
 * Publishes the connection's `outbox` rows in insertion order, `batchSize` at a time, through
 * `bus.publish` (which resolves only when the broker confirmed every event), then marks them
 * published (they expire 7 days later). A failed publish is retried with capped exponential
 * backoff: a broker outage delays events, never loses them.
 *
 * Replicas (docs/adr/0057): a relay publishes only while it holds the lease (one `outbox_lease`
 * row, taken with `findOneAndUpdate` when free or expired), so replicas do not double-publish and
 * order is kept. The lease is short (`leaseMs`, 2 s) and the holder renews it on a heartbeat every
 * `leaseMs / 3`, independent of how long a batch takes: a long publish keeps it, a dead holder
 * (SIGKILL) loses it within `leaseMs`. A batch starts only with more than a third of the lease left
 * (else the relay renews first); a relay whose renewal finds another owner stops at once. Only a
 * holder frozen longer than the lease in the middle of a batch (a stalled event loop) can publish
 * after another took over: those events go out twice, and consumers de-duplicate by event id
 * (`consumeOnce`), as they do for a holder that died between publishing and marking.
 * A relay holds the lease only while there is work (docs/adr/0070): after `leaseMs` without a row
 * it hands the lease back and sleeps until a commit on its connection kicks it (or the idle poll),
 * so an idle service sends no query and renews nothing. A replica whose kick finds the lease held
 * by another looks again every `leaseMs / 3` while its rows wait (the holder publishes them, or the
 * lease comes free).
 */
export function startOutboxRelay(opts: OutboxRelayOptions): OutboxRelay {
  const { conn, bus, logger } = opts;
  const Outbox = outboxModel(conn);
  const idlePollMs = opts.pollIntervalMs ?? DEFAULT_RELAY_IDLE_POLL_MS;
  const leaseMs = opts.leaseMs ?? DEFAULT_RELAY_LEASE_MS;
  const busyPollMs = Math.min(BUSY_POLL_MS, idlePollMs);
  const blockedPollMs = Math.min(Math.max(1, Math.floor(leaseMs / 3)), idlePollMs);
  const batchSize = opts.batchSize ?? 100;
  const minBackoff = opts.minBackoffMs ?? 250;
  const maxBackoff = opts.maxBackoffMs ?? 30_000;

  let stopped = false;
  let failures = 0;
  let busy = false;
  const lease = relayLease(leaseModel(conn), leaseMs, logger, () => stopped);
  /** When this relay last published (its lease is kept `leaseMs` past that, for a burst's next rows). */
  let lastWorkAt = 0;
  const waker = wakeableSleep(() => stopped);

  /**
   * One batch: how many events were published, or `blocked` when rows wait but another replica holds
   * the lease (0: none pending, or the lease ran low while reading and the next tick claims again).
   */
  const tick = async (): Promise<number | 'blocked'> => {
    // Under load a batch is three commands (read, publish, mark): the heartbeat keeps the lease.
    if (!lease.holds()) {
      const first = await Outbox.findOne({ publishedAt: null }, { _id: 1 }).sort({ seq: 1 }).lean();
      if (!first) return 0;
      if (!(await lease.claim(false))) return 'blocked';
      lastWorkAt = Date.now();
    }
    const rows = await Outbox.find({ publishedAt: null }).sort({ seq: 1 }).limit(batchSize).lean();
    if (!rows.length) return 0;
    if (!lease.holds()) return 'blocked'; // ran low while reading: look again shortly, renewed or claimed anew
    await bus.publish(rows.map((r) => r.envelope as EventEnvelope), { traceHeaders: rows.map((r) => r.trace ?? {}), publisher: opts.service });
    await Outbox.updateMany({ _id: { $in: rows.map((r) => r._id) } }, { $set: { publishedAt: new Date() } });
    return rows.length;
  };

  /** The wait after a tick that found `n`: at once after a full batch; a short look while busy or blocked; else the lease goes back and the relay sleeps. */
  const waitAfter = async (n: number | 'blocked'): Promise<number> => {
    if (n === 'blocked') return blockedPollMs;
    if (n >= batchSize) return 0;
    const now = Date.now();
    if (n > 0) lastWorkAt = now;
    if (lease.held() && now - lastWorkAt < leaseMs) return busyPollMs;
    if (lease.held()) await lease.handBack();
    return idlePollMs;
  };

  const loop = (async () => {
    while (!stopped) {
      waker.reset();
      let delay = idlePollMs;
      let kickable = true;
      busy = true;
      try {
        // The polls, the lease and the marking make no spans (an idle service sends no traces); each
        // event's publish span joins the trace stored with its row (its own, or a new one).
        const n = await withoutTracing(tick);
        if (failures) logger.info({ afterFailures: failures }, 'outbox relay publishing again');
        failures = 0;
        delay = await withoutTracing(() => waitAfter(n));
      } catch (err) {
        failures++;
        delay = Math.min(maxBackoff, minBackoff * 2 ** (failures - 1));
        kickable = false; // during an outage new commits must not turn the backoff into a busy loop
        logger.warn({ err: (err as Error)?.message ?? err, failures, retryInMs: delay }, 'outbox relay: publish failed; will retry');
      } finally {
        busy = false;
      }
      if (delay > 0 && !stopped) await waker.sleep(delay, kickable);
    }
  })();

  const unregister = registerKick(conn, () => relay.kick());
  const unregisterMetrics = registerOutboxMetrics(opts.service ?? conn.name, Outbox);

  const relay: OutboxRelay = {
    kick() {
      waker.kick(failures === 0);
    },
    async drain(timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        if (!busy && (await Outbox.countDocuments({ publishedAt: null })) === 0 && !busy) return;
        if (stopped) throw new Error('outbox relay stopped');
        if (Date.now() > deadline) throw new Error(`outbox not drained after ${timeoutMs} ms`);
        relay.kick();
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    async stop() {
      if (stopped) return loop;
      stopped = true;
      lease.stopRenewing();
      unregister();
      unregisterMetrics();
      waker.stop();
      await loop;
      await withoutTracing(() => lease.handBack());
    },
  };
  return relay;
}

/**
 * The relay lease of one relay (docs/adr/0057): taken when free or expired, renewed on a heartbeat
 * every third of `leaseMs` whatever the relay is doing, handed back at stop.
 */
function relayLease(Lease: ReturnType<typeof leaseModel>, leaseMs: number, logger: OutboxRelayOptions['logger'], stopped: () => boolean) {
  const me = `relay_${randomBytes(6).toString('hex')}`;
  let rowReady = false;
  /** When the lease this relay last took or renewed runs out (0: not held). */
  let leaseUntilMs = 0;
  let renewal: Promise<unknown> | null = null;

  const ensureRow = async () => {
    if (rowReady) return;
    try {
      await Lease.create({ _id: LEASE_ID, owner: null, leaseUntil: new Date(0) });
    } catch (err) {
      if ((err as { code?: number }).code !== 11000) throw err;
    }
    rowReady = true;
  };
  /**
   * Takes the lease (free or expired) or renews it (`renewOnly`: only while this relay still owns
   * it). The new end is counted from before the query, so this relay's view never outlasts the row's.
   */
  const claim = async (renewOnly: boolean): Promise<boolean> => {
    await ensureRow();
    const now = Date.now();
    const row = await Lease.findOneAndUpdate(
      renewOnly ? { _id: LEASE_ID, owner: me } : { _id: LEASE_ID, $or: [{ owner: me }, { leaseUntil: { $lte: new Date(now) } }] },
      { $set: { owner: me, leaseUntil: new Date(now + leaseMs) } },
      { returnDocument: 'after' },
    ).lean();
    if (stopped()) return false;
    if (row?.owner !== me) {
      if (leaseUntilMs) logger.warn({ relay: me }, 'outbox relay: lease taken over by another replica; publishing stops here');
      leaseUntilMs = 0;
      stopHeartbeat();
      return false;
    }
    leaseUntilMs = now + leaseMs;
    renewWhileHeld();
    return true;
  };

  /** Renews the lease every third of it while it is held; no timer while idle (docs/adr/0070). */
  let heartbeat: ReturnType<typeof setInterval> | null = null;
  const renewWhileHeld = () => {
    if (heartbeat) return;
    heartbeat = setInterval(() => {
      if (!leaseUntilMs || renewal || stopped()) return;
      renewal = withoutTracing(() => claim(true))
        .catch((err) => logger.warn({ err: (err as Error)?.message ?? err, relay: me }, 'outbox relay: lease renewal failed; will retry'))
        .finally(() => (renewal = null));
    }, Math.max(1, Math.floor(leaseMs / 3)));
    heartbeat.unref();
  };
  const stopHeartbeat = () => {
    if (heartbeat) clearInterval(heartbeat);
    heartbeat = null;
  };

  return {
    claim,
    /** Held with more than a third of it left: a batch may start without a query. */
    holds: () => leaseUntilMs - Date.now() > leaseMs / 3,
    /** Held at all (taken or renewed, not yet handed back or lost). */
    held: () => leaseUntilMs > 0,
    stopRenewing() {
      leaseUntilMs = 0;
      stopHeartbeat();
    },
    /** Frees the lease for any replica (when idle, and at stop): a renewal in flight must not land after it. */
    async handBack() {
      leaseUntilMs = 0;
      stopHeartbeat();
      await renewal;
      leaseUntilMs = 0;
      stopHeartbeat(); // a renewal that landed meanwhile started it again
      try {
        await Lease.updateOne({ _id: LEASE_ID, owner: me }, { $set: { owner: null, leaseUntil: new Date(0) } });
      } catch {
        /* the lease expires on its own */
      }
    },
  };
}

/**
 * The relay's wait between polls: `kick()` (a commit on this connection) ends a kickable wait at once,
 * or the next one before it starts; `stop()` ends any wait.
 */
function wakeableSleep(stopped: () => boolean) {
  let kicked = false;
  let wake: (() => void) | null = null;
  return {
    reset: () => (kicked = false),
    sleep: (ms: number, kickable: boolean) =>
      new Promise<void>((resolve) => {
        const t = setTimeout(done, ms);
        function done() {
          clearTimeout(t);
          wake = null;
          resolve();
        }
        if (kickable) {
          if (kicked) return done();
          wake = done;
        } else {
          wake = () => (stopped() ? done() : undefined);
        }
      }),
    /** `now`: end a wait already under way (not during a backoff). */
    kick(now: boolean) {
      kicked = true;
      if (wake && now) wake();
    },
    stop: () => wake?.(),
  };
}

/** Scraped: the backlog and the age of its oldest event, labelled with the service (not its database's name). */
function registerOutboxMetrics(service: string, Outbox: ReturnType<typeof outboxModel>): () => void {
  const labels = () => ({ service });
  const unregisterBacklog = outboxBacklog.add(async () => [{ labels: labels(), value: await withoutTracing(() => Outbox.countDocuments({ publishedAt: null })) }]);
  const unregisterAge = outboxOldestAge.add(async () => {
    const oldest = await withoutTracing(() => Outbox.findOne({ publishedAt: null }, { createdAt: 1 }).sort({ seq: 1 }).lean());
    return [{ labels: labels(), value: oldest ? Math.max(0, (Date.now() - oldest.createdAt.getTime()) / 1000) : 0 }];
  });
  return () => {
    unregisterBacklog();
    unregisterAge();
  };
}
