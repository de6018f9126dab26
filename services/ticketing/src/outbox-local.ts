/**
 * Stand-in for kit's event bus and outbox (same API as the one being added to `@helpdesk/kit`), kept
 * only until kit exports them; see `./outbox.ts`. Events are written to an `outbox` collection in the
 * same transaction as the change; the relay publishes what is pending and marks it sent.
 */
import mongoose, { type ClientSession } from 'mongoose';
import {
  EVENT_CATALOG,
  parseEvent,
  topicMatches,
  type Actor,
  type EventData,
  type EventEnvelope,
  type EventType,
} from '@helpdesk/contracts';
import { newId, type Logger } from '@helpdesk/kit';

export type Handler = (e: EventEnvelope, ctx: { redelivered: boolean; attempt: number }) => Promise<void>;

export interface EventBus {
  publish(events: EventEnvelope[]): Promise<void>;
  subscribe(service: string, patterns: string[], handler: Handler, opts?: Record<string, unknown>): Promise<void>;
  close(): Promise<void>;
}

export interface OutboxRelay {
  kick(): void;
  drain(timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

export interface OutboxScope {
  teamId: string;
  mode: 'test' | 'live';
  requestId: string | null;
  actor: Actor;
}

export type Emit = <T extends EventType>(e: { type: T; data: EventData<T> }) => EventEnvelope;

/** In-process bus: every message is serialised and validated as it would be on the wire. */
export function createBus(opts: { amqpUrl?: string; logger: Logger }): EventBus {
  if (opts.amqpUrl) throw new Error('AMQP bus not available until kit exports createBus');
  const subs: { patterns: string[]; handler: Handler }[] = [];
  return {
    async publish(events) {
      for (const e of events) {
        const wire = parseEvent(JSON.parse(JSON.stringify(e)));
        for (const s of subs) {
          if (!s.patterns.some((p) => topicMatches(p, wire.type))) continue;
          try {
            await s.handler(wire, { redelivered: false, attempt: 1 });
          } catch (err) {
            opts.logger.error({ err, eventId: wire.id }, 'event handler failed');
          }
        }
      }
    },
    async subscribe(_service, patterns, handler) {
      subs.push({ patterns, handler });
    },
    async close() {
      subs.length = 0;
    },
  };
}

const outboxSchema = new mongoose.Schema(
  {
    _id: { type: String, required: true },
    envelope: { type: mongoose.Schema.Types.Mixed, required: true },
    status: { type: String, enum: ['pending', 'sent'], required: true },
    createdAt: { type: Date, required: true },
    seq: { type: Number, required: true },
    sentAt: { type: Date, default: null },
  },
  { collection: 'outbox', versionKey: false, minimize: false },
);
outboxSchema.index({ status: 1, createdAt: 1, seq: 1 });

function outboxModel(conn: mongoose.Connection) {
  return conn.models.OutboxEvent ?? conn.model('OutboxEvent', outboxSchema);
}

export async function withOutbox<R>(
  conn: mongoose.Connection,
  scope: OutboxScope,
  fn: (session: ClientSession, emit: Emit) => Promise<R>,
): Promise<R> {
  const Outbox = outboxModel(conn);
  const session = await conn.startSession();
  try {
    let result!: R;
    await session.withTransaction(async () => {
      const pending: EventEnvelope[] = [];
      const emit: Emit = (e) => {
        const envelope: EventEnvelope = {
          id: newId('event'),
          type: e.type,
          version: EVENT_CATALOG[e.type].version,
          teamId: scope.teamId,
          mode: scope.mode,
          occurredAt: new Date().toISOString(),
          requestId: scope.requestId,
          actor: scope.actor,
          data: JSON.parse(JSON.stringify(e.data)),
        };
        parseEvent(envelope);
        pending.push(envelope);
        return envelope;
      };
      result = await fn(session, emit);
      if (pending.length) {
        const now = new Date();
        await Outbox.insertMany(
          pending.map((envelope, i) => ({ _id: envelope.id, envelope, status: 'pending', createdAt: now, seq: i })),
          { session },
        );
      }
    });
    return result;
  } finally {
    await session.endSession();
  }
}

export function startOutboxRelay(opts: {
  conn: mongoose.Connection;
  bus: EventBus;
  logger: Logger;
  pollIntervalMs?: number;
  batchSize?: number;
}): OutboxRelay {
  const Outbox = outboxModel(opts.conn);
  const batchSize = opts.batchSize ?? 100;
  let stopped = false;
  let running: Promise<number> | null = null;
  let again = false;

  const once = async (): Promise<number> => {
    const rows = await Outbox.find({ status: 'pending' }).sort({ createdAt: 1, seq: 1 }).limit(batchSize).lean();
    if (!rows.length) return 0;
    await opts.bus.publish(rows.map((r) => r.envelope as EventEnvelope));
    await Outbox.updateMany({ _id: { $in: rows.map((r) => r._id) } }, { $set: { status: 'sent', sentAt: new Date() } });
    return rows.length;
  };
  const tick = (): Promise<number> => {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      let total = 0;
      try {
        do {
          again = false;
          let n: number;
          do {
            n = await once();
            total += n;
          } while (n === batchSize && !stopped);
        } while (again && !stopped);
      } catch (err) {
        opts.logger.error({ err }, 'outbox relay failed');
      } finally {
        running = null;
      }
      return total;
    })();
    return running;
  };
  const timer = setInterval(() => void tick(), opts.pollIntervalMs ?? 500);
  timer.unref();

  return {
    kick() {
      if (!stopped) void tick();
    },
    async drain(timeoutMs = 5_000) {
      const until = Date.now() + timeoutMs;
      while (Date.now() < until) {
        if (running) await running;
        const left = await Outbox.countDocuments({ status: 'pending' });
        if (!left) return;
        await tick();
      }
      throw new Error('outbox drain timed out');
    },
    async stop() {
      stopped = true;
      clearInterval(timer);
      if (running) await running;
    },
  };
}
