import type mongoose from 'mongoose';
import type { EventEnvelope } from '@helpdesk/contracts';
import { processedModel } from './models';

class AlreadyProcessed extends Error {}

/**
 * Consumer-side idempotency. Runs `fn(session)` and records `(consumer, event.id)` in
 * `processed_events` in ONE transaction: the side effect and the record commit together or not at
 * all. A second delivery of the same event id (broker redelivery, a relay re-publishing after a
 * crash) is skipped and returns false; the first returns true. `fn` must write only through
 * `session`. Records are kept 30 days (longer than the outbox's 7 days and any retry schedule).
 */
export async function consumeOnce(
  conn: mongoose.Connection,
  consumer: string,
  event: EventEnvelope,
  fn: (session: mongoose.ClientSession) => Promise<void>,
): Promise<boolean> {
  const Processed = processedModel(conn);
  const key = `${consumer}:${event.id}`;
  if (await Processed.exists({ _id: key })) return false;
  try {
    await conn.transaction(async (session) => {
      try {
        await Processed.create([{ _id: key, consumer, eventId: event.id, processedAt: new Date() }], { session });
      } catch (err) {
        // A concurrent delivery committed first.
        if ((err as { code?: number }).code === 11000) throw new AlreadyProcessed();
        throw err;
      }
      await fn(session);
    });
    return true;
  } catch (err) {
    if (err instanceof AlreadyProcessed) return false;
    throw err;
  }
}
