import type mongoose from 'mongoose';
import type { Actor, EventEnvelope, Partition } from '@helpdesk/contracts';
import { collectionOf, insertAll } from '../lean-reads';
import { CONSUMER_TRANSACTION_GIVE_UP_MS, inTransaction } from '../transaction';
import { processedModel } from './models';
import { withOutbox, type Emit } from './with-outbox';

/**
 * Thrown inside a unit of work when one of its events was applied before (a broker redelivery, a relay
 * re-publishing after a crash): the unit rolls back. consumeOnce answers false for it; a micro-batch is
 * applied again one event at a time, and a batch of one that throws it is acknowledged.
 */
export class AlreadyProcessed extends Error {
  constructor(message = 'an event was processed before') {
    super(message);
  }
}

/**
 * Records `(consumer, event.id)` in `processed_events` for each event, in one insert inside `session`
 * (no read first, docs/adr/0045: a repeat, committed before or committing concurrently, fails it with a
 * duplicate key, thrown as AlreadyProcessed). Built here in full: inserted lean (docs/adr/0043).
 */
export async function recordProcessed(conn: mongoose.Connection, consumer: string, events: EventEnvelope[], session: mongoose.ClientSession): Promise<void> {
  const processedAt = new Date();
  try {
    await insertAll(collectionOf(processedModel(conn)), events.map((e) => ({ _id: `${consumer}:${e.id}`, consumer, eventId: e.id, processedAt })), session);
  } catch (err) {
    if ((err as { code?: number }).code === 11000) throw new AlreadyProcessed();
    throw err;
  }
}

/** The actor of events a service publishes in reaction to another service's event. */
export const SYSTEM_ACTOR: Actor = { type: 'system', id: null };

/** The scope of events the service emits on its own account: the system is the actor, `requestId` the causing request's, if any. */
export const systemEventScope = (scope: { teamId: string; mode: Partition }, requestId: string | null = null) => ({
  teamId: scope.teamId,
  mode: scope.mode,
  requestId,
  actor: SYSTEM_ACTOR,
});

/**
 * Runs `body` in the unit of work `run` opens, recording `(consumer, event.id)` in
 * `processed_events` first: the record and the side effect commit together or not at all, and a
 * second delivery of the same id (broker redelivery, a relay re-publishing after a crash) is skipped.
 */
async function recordOnce<A extends unknown[]>(
  conn: mongoose.Connection,
  consumer: string,
  event: EventEnvelope,
  run: (body: (session: mongoose.ClientSession, ...rest: A) => Promise<void>) => Promise<unknown>,
  fn: (session: mongoose.ClientSession, ...rest: A) => Promise<void>,
): Promise<boolean> {
  try {
    await run(async (session, ...rest) => {
      // The record is the transaction's first write: a repeat fails before `fn` runs.
      await recordProcessed(conn, consumer, [event], session);
      await fn(session, ...rest);
    });
    return true;
  } catch (err) {
    if (err instanceof AlreadyProcessed) return false;
    throw err;
  }
}

/**
 * Consumer-side idempotency. Runs `fn(session)` and records `(consumer, event.id)` in ONE
 * transaction; true the first time, false for a repeat. `fn` must write only through `session`.
 * Records are kept 30 days (longer than the outbox's 7 days and any retry schedule).
 */
export function consumeOnce(
  conn: mongoose.Connection,
  consumer: string,
  event: EventEnvelope,
  fn: (session: mongoose.ClientSession) => Promise<void>,
): Promise<boolean> {
  return recordOnce(conn, consumer, event, (body) => inTransaction(conn, body, { giveUpAfterMs: CONSUMER_TRANSACTION_GIVE_UP_MS }), fn);
}

/**
 * `consumeOnce` for a handler that also publishes: the record, the change and the events it emits
 * commit in one `withOutbox` transaction. Emitted events keep the causing event's team, partition
 * and requestId; their actor is the system.
 */
export function consumeOnceEmitting(
  conn: mongoose.Connection,
  consumer: string,
  event: EventEnvelope,
  fn: (session: mongoose.ClientSession, emit: Emit) => Promise<void>,
): Promise<boolean> {
  const scope = systemEventScope(event, event.requestId);
  return recordOnce<[Emit]>(conn, consumer, event, (body) => withOutbox(conn, scope, (session, emit) => body(session, emit), { consumer: true }), fn);
}
