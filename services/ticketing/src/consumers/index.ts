import type { EventEnvelope } from '@helpdesk/contracts';
import type { Logger } from '@helpdesk/kit';
import type mongoose from 'mongoose';
import type { EventBus } from '../outbox';

export interface ConsumerDeps {
  conn: mongoose.Connection;
  logger: Logger;
}

export interface Subscription {
  patterns: string[];
  handler: (deps: ConsumerDeps) => (e: EventEnvelope, ctx: { redelivered: boolean; attempt: number }) => Promise<void>;
}

/**
 * Everything ticketing reacts to, in one list. Empty for now: `customer.deleted` (to unlink or remove
 * a deleted customer's tickets) will be added here once that event is in the contracts catalog.
 */
export const SUBSCRIPTIONS: Subscription[] = [];

export async function subscribeConsumers(bus: EventBus, deps: ConsumerDeps): Promise<void> {
  for (const s of SUBSCRIPTIONS) await bus.subscribe('ticketing', s.patterns, s.handler(deps));
}
