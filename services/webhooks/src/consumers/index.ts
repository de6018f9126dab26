import type mongoose from 'mongoose';
import type { EventEnvelope } from '@helpdesk/contracts';
import { consumeOnce, type ConsumeContext, type EventBus, type Logger } from '@helpdesk/kit';
import { deliveryModel } from '../deliveries/model';
import { eventDeliveryRows } from '../deliveries/service';
import { commitAndDispatch, type Dispatcher } from '../delivery/dispatch';
import { webhookModel, type WebhookDoc } from '../webhooks/model';
import { subscribes } from '../webhooks/patterns';

export interface ConsumerDeps {
  conn: mongoose.Connection;
  logger: Logger;
  /** The delivery worker of this process: new deliveries go out as soon as they commit. */
  dispatch: Dispatcher;
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
    const active = await Webhooks.find({ teamId: event.teamId, mode: event.mode, isActive: true }).select('+secret').lean<WebhookDoc[]>();
    const hooks = active.filter((h) => subscribes(h.events, event.type));
    if (!hooks.length) return;
    await commitAndDispatch(deps.dispatch, eventDeliveryRows(event, hooks), new Map(hooks.map((h) => [h._id, h])), (rows) =>
      consumeOnce(deps.conn, CONSUMER, event, async (session) => {
        await Deliveries.insertMany(rows, { session });
      }),
    );
  };
};

/** Everything the webhooks service reacts to, in one list. */
export const SUBSCRIPTIONS: Subscription[] = [{ patterns: ['#'], handler: deliverEvent }];

export async function subscribeConsumers(bus: EventBus, deps: ConsumerDeps): Promise<void> {
  for (const s of SUBSCRIPTIONS) await bus.subscribe('webhooks', s.patterns, s.handler(deps));
}
