import type mongoose from 'mongoose';
import { EVENT_CATALOG, parseEvent, type Actor, type EventData, type EventEnvelope, type EventType, type Partition } from '@helpdesk/contracts';
import { newId } from '../ids';
import { collectionOf, insertAll } from '../lean-reads';
import { CONSUMER_TRANSACTION_GIVE_UP_MS, inTransaction } from '../transaction';
import { currentTraceHeaders } from '../telemetry/propagation';
import { closeUnitWrites, openUnitWrites, sendUnitWrites } from '../unit-writes';
import { idempotentStep } from './idempotent-requests';
import { outboxModel, type OutboxRow } from './models';

export interface EventInput<T extends EventType = EventType> {
  type: T;
  data: EventData<T>;
}

export interface EventScope {
  teamId: string;
  mode: Partition;
  requestId: string | null;
  actor: Actor;
  /**
   * W3C trace headers the event continues, when not the unit's own (the active context at
   * `withOutbox`): a micro-batch's emitted events each keep their cause's trace.
   */
  trace?: Record<string, string>;
}

/**
 * Records one event in the unit of work and returns its envelope (as it will cross the wire). `scope`
 * overrides the unit's own for this event (a batch of several teams' events in one transaction).
 */
export type Emit = <T extends EventType>(e: EventInput<T>, scope?: EventScope) => EventEnvelope;

let counter = 0;
/** Insertion order: milliseconds × 1000 + a per-process counter (exact in a double until year 2255). */
function nextSeq(): number {
  counter = (counter + 1) % 1000;
  return Date.now() * 1000 + counter;
}

/** Relays per connection, woken after a commit. */
const relayKicks = new WeakMap<mongoose.Connection, Set<() => void>>();

/** @internal used by startOutboxRelay */
export function registerKick(conn: mongoose.Connection, kick: () => void): () => void {
  let set = relayKicks.get(conn);
  if (!set) relayKicks.set(conn, (set = new Set()));
  set.add(kick);
  return () => set.delete(kick);
}

/**
 * Runs `fn` inside `inTransaction` (retried with backoff on transient errors, so `fn` must only
 * touch the database through `session`, and may run more than once); each `emit` builds a validated envelope and the envelopes
 * are stored in the `outbox` collection in the same transaction. After the commit, the relays on this
 * connection are woken. Returns `fn`'s result. An invalid payload throws from `emit` itself.
 *
 * In a request with an Idempotency-Key, `fn`'s result is stored with the key in the same transaction
 * and a retry after a crash gets it back instead of running `fn` (docs/adr/0062): a handler builds its
 * answer from what withOutbox returns (ids and timestamps made inside `fn` or returned by it), so the
 * retry answers what the first attempt committed. The result must be BSON-serialisable (plain data).
 */
export async function withOutbox<R>(
  conn: mongoose.Connection,
  scope: EventScope,
  fn: (session: mongoose.ClientSession, emit: Emit) => Promise<R>,
  opts: {
    /** A consumer's unit of work: never a request's recorded step, and its retries end at CONSUMER_TRANSACTION_GIVE_UP_MS. */
    consumer?: boolean;
  } = {},
): Promise<R> {
  // In a request with an Idempotency-Key, the transaction is recorded with the key, or, on a retry
  // after a crash, answered from that record without writing again (docs/adr/0062).
  const step = opts.consumer ? null : idempotentStep(conn);
  if (step?.replayed) return step.out as R;
  const Outbox = outboxModel(conn);
  const trace = currentTraceHeaders();
  let emitted = 0;
  const unit = async (session: mongoose.ClientSession): Promise<R> => {
    const pending: EventEnvelope[] = [];
    const traces: Array<Record<string, string> | undefined> = [];
    const emit: Emit = (e, own = scope) => {
      const envelope = {
        id: newId('event'),
        type: e.type,
        version: EVENT_CATALOG[e.type].version,
        teamId: own.teamId,
        mode: own.mode,
        occurredAt: new Date().toISOString(),
        requestId: own.requestId,
        actor: own.actor,
        data: e.data,
      };
      // Exactly what the bus will send: JSON, validated against the catalog.
      const wire = parseEvent(JSON.parse(JSON.stringify(envelope)));
      pending.push(wire);
      traces.push(own.trace);
      return wire;
    };
    // The unit's writes made `atCommit` (docs/adr/0078) go out with its outbox rows, in one command.
    const atCommit = openUnitWrites(session);
    try {
      const out = await fn(session, emit);
      const outbox = collectionOf(Outbox);
      // Rows kit builds itself, envelopes already validated by emit: a lean insert, without
      // mongoose hydrating and validating each row again (docs/adr/0019).
      const now = new Date();
      const rows: OutboxRow[] = pending.map((envelope, i) => ({ _id: envelope.id, envelope, trace: traces[i] ?? trace, seq: nextSeq(), createdAt: now, publishedAt: null }));
      if (atCommit.length) {
        const namespace = `${outbox.dbName}.${outbox.collectionName}`;
        for (const document of rows) atCommit.push({ namespace, name: 'insertOne', document });
        closeUnitWrites(session);
        await sendUnitWrites(conn.getClient(), atCommit, session);
      } else if (rows.length) await insertAll(outbox, rows, session);
      if (step) await step.record(session, out);
      emitted = pending.length;
      return out;
    } finally {
      closeUnitWrites(session);
    }
  };
  const result = await inTransaction(conn, unit, opts.consumer ? { giveUpAfterMs: CONSUMER_TRANSACTION_GIVE_UP_MS } : {});
  step?.committed();
  if (emitted) for (const kick of relayKicks.get(conn) ?? []) kick();
  return result;
}
