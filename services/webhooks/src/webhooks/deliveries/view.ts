import type { Unscoped } from '@helpdesk/kit';
import { iso } from '../view';
import type { DeliveryDoc } from './model';

/** A delivery in the log. `payload` (the exact body sent, parsed) only on the single read. */
export function deliveryView(d: Unscoped<DeliveryDoc>, withPayload = false) {
  return {
    id: d._id,
    webhookId: d.webhookId,
    eventId: d.eventId,
    eventType: d.eventType,
    test: d.test,
    status: d.status,
    attempts: d.attempts.map((a) => ({
      attempt: a.attempt,
      at: iso(a.at)!,
      statusCode: a.statusCode ?? null,
      durationMs: a.durationMs,
      error: a.error ?? null,
    })),
    attemptCount: d.attemptCount,
    nextAttemptAt: iso(d.nextAttemptAt),
    createdAt: iso(d.createdAt)!,
    updatedAt: iso(d.updatedAt)!,
    ...(withPayload ? { payload: JSON.parse(d.body) as unknown } : {}),
  };
}
export type DeliveryView = ReturnType<typeof deliveryView>;
