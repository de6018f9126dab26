import type mongoose from 'mongoose';
import type { EventEnvelope } from '@helpdesk/contracts';
import { consumeOnce, type ConsumeContext, type EventBus, type Logger } from '@helpdesk/kit';
import { deliveryModel } from '../deliveries/model';
import { createEventDeliveries } from '../deliveries/service';
import { webhookModel, type WebhookDoc } from '../webhooks/model';
import { subscribes } from '../webhooks/patterns';

export interface ConsumerDeps {
  conn: mongoose.Connection;
  logger: Logger;
  /** Wakes the delivery worker once new deliveries are committed. */
  kick: () => void;
}

export interface Subscription {
  patterns: string[];
  handler: (deps: ConsumerDeps) => (e: EventEnvelope, ctx: ConsumeContext) => Promise<void>;
}

/** The consumer name in `processed_events` (one de-duplication record per event). */
export const CONSUMER = 'webhooks';

/**
 * Every event, whatever its type, becomes one delivery per active webhook of its team and partition
 * that subscribes to it. The deliveries and the de-duplication record commit together
 * (`consumeOnce`), so a broker redelivery creates nothing twice; events no webhook wants are
 * acknowledged without a write.
 */
const deliverEvent: Subscription['handler'] = (deps) => {
  const Webhooks = webhookModel(deps.conn);
  const Deliveries = deliveryModel(deps.conn);
  return async (event) => {
    const hooks = await Webhooks.find({ teamId: event.teamId, mode: event.mode, isActive: true }, { _id: 1, events: 1 }).lean<Pick<WebhookDoc, '_id' | 'events'>[]>();
    if (!hooks.some((h) => subscribes(h.events, event.type))) return;
    let created = 0;
    const first = await consumeOnce(deps.conn, CONSUMER, event, async (session) => {
      created = await createEventDeliveries({ deliveries: Deliveries }, event, hooks, session);
    });
    if (first && created) deps.kick();
  };
};

/** Everything the webhooks service reacts to, in one list. */
export const SUBSCRIPTIONS: Subscription[] = [{ patterns: ['#'], handler: deliverEvent }];

export async function subscribeConsumers(bus: EventBus, deps: ConsumerDeps): Promise<void> {
  for (const s of SUBSCRIPTIONS) await bus.subscribe('webhooks', s.patterns, s.handler(deps));
}
