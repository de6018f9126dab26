import type mongoose from 'mongoose';
import type { Actor, EventEnvelope } from '@helpdesk/contracts';
import { processedModel, withOutbox, type Emit } from '@helpdesk/kit';

class AlreadyProcessed extends Error {}

/** Events this service publishes in reaction to another service's event. */
const SYSTEM: Actor = { type: 'system', id: null };

/**
 * kit's `consumeOnce` for a handler that may also publish: the processed-event record (same key and
 * collection as consumeOnce), the change, and the events it emits commit in ONE transaction
 * (withOutbox's), or none of them. A second delivery of the same event id is skipped (false).
 * Emitted events keep the causing event's team, partition and requestId; the actor is the system.
 */
export async function consumeOnceEmitting(
  conn: mongoose.Connection,
  consumer: string,
  event: EventEnvelope,
  fn: (session: mongoose.ClientSession, emit: Emit) => Promise<void>,
): Promise<boolean> {
  const Processed = processedModel(conn);
  const key = `${consumer}:${event.id}`;
  if (await Processed.exists({ _id: key })) return false;
  try {
    await withOutbox(conn, { teamId: event.teamId, mode: event.mode, requestId: event.requestId, actor: SYSTEM }, async (session, emit) => {
      try {
        await Processed.create([{ _id: key, consumer, eventId: event.id, processedAt: new Date() }], { session });
      } catch (err) {
        // A concurrent delivery committed first.
        if ((err as { code?: number }).code === 11000) throw new AlreadyProcessed();
        throw err;
      }
      await fn(session, emit);
    });
    return true;
  } catch (err) {
    if (err instanceof AlreadyProcessed) return false;
    throw err;
  }
}
