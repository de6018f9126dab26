import type mongoose from 'mongoose';
import type { EventEnvelope, EventType } from '@helpdesk/contracts';
import type { EventBus, Logger } from '@helpdesk/kit';
import { servicesOf } from '../services';
import { CONSUMER, ticketHandlers } from './tickets';

export interface ConsumerDeps {
  conn: mongoose.Connection;
  logger: Logger;
}

type Handler = (e: EventEnvelope) => Promise<void>;

/** Everything the customers service reacts to, in one list: event type → handler. */
export function subscriptions(deps: ConsumerDeps): Partial<Record<EventType, Handler>> {
  const tickets = ticketHandlers(deps.conn, servicesOf(deps.conn).customers);
  return {
    'ticket.created': tickets.created, // ticketCount +1; the initial customer messages' sentiment
    'ticket.updated': tickets.updated, // customerId moved: -1 / +1
    'ticket.deleted': tickets.deleted, // ticketCount -1
    'ticket.message_added': tickets.messageAdded, // a customer message's sentiment
  };
}

/** One queue (`helpdesk.customers`) bound to exactly these types; a handler that throws is retried by the bus. */
export async function subscribeConsumers(bus: EventBus, deps: ConsumerDeps): Promise<void> {
  const handlers = subscriptions(deps);
  await bus.subscribe(CONSUMER, Object.keys(handlers), async (e) => {
    await handlers[e.type as EventType]?.(e);
  });
}
