import type mongoose from 'mongoose';
import type { Actor, EventEnvelope } from '@helpdesk/contracts';
import { leanInsert } from '../lean-reads';
import { processedModel } from './models';
import { withOutbox, type Emit } from './with-outbox';

class AlreadyProcessed extends Error {}

/** The actor of events a service publishes in reaction to another service's event. */
export const SYSTEM_ACTOR: Actor = { type: 'system', id: null };

/** The scope of events the service emits on its own account: the system is the actor, `requestId` the causing request's, if any. */
export const systemEventScope = (scope: { teamId: string; mode: 'test' | 'live' }, requestId: string | null = null) => ({
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
  const Processed = processedModel(conn);
  const key = `${consumer}:${event.id}`;
  // No read first (docs/adr/0045): the record is the transaction's first write, and a repeat
  // (committed before, or committing concurrently) fails it with a duplicate key before `fn` runs.
  try {
    await run(async (session, ...rest) => {
      try {
        // Built here in full: inserted lean, without mongoose hydration (docs/adr/0043).
        await leanInsert(Processed, [{ _id: key, consumer, eventId: event.id, processedAt: new Date() }], { session });
      } catch (err) {
        // A delivery of the same event committed first (earlier, or concurrently).
        if ((err as { code?: number }).code === 11000) throw new AlreadyProcessed();
        throw err;
      }
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
  return recordOnce(conn, consumer, event, (body) => conn.transaction((session) => body(session)), fn);
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
  return recordOnce<[Emit]>(conn, consumer, event, (body) => withOutbox(conn, scope, (session, emit) => body(session, emit)), fn);
}
