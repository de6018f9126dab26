import type mongoose from 'mongoose';
import { consumeOnce, consumeOnceEmitting, type TypedEvent } from '@helpdesk/kit';
import type { CustomerRules } from '../customers/rules';

/** The consumer name events are de-duplicated under (`processed_events`: `customers:<event id>`). */
export const CONSUMER = 'customers';

/**
 * What ticket events do to customers. `ticketCount` is a derived counter: +1/-1 increments commute,
 * so the order events arrive in does not matter, a customer that does not exist is left alone, and
 * no customer event is published for it. Customer messages feed the calculated sentiment. Each
 * event is applied once (consumeOnce).
 */
export function ticketConsumers(conn: mongoose.Connection, customers: CustomerRules) {
  return {
    async created(e: TypedEvent<'ticket.created'>) {
      const { ticket, messages } = e.data;
      const customerId = ticket.customerId;
      if (!customerId) return;
      await consumeOnceEmitting(conn, CONSUMER, e, async (session, emit) => {
        await customers.adjustTicketCount(e, customerId, 1, session);
        if (messages?.length) await customers.addMessages(e, customerId, messages, session, emit);
      });
    },

    /** A ticket moved from one customer to another (or linked, or unlinked). */
    async updated(e: TypedEvent<'ticket.updated'>) {
      const { ticket, changes, previous } = e.data;
      if (!changes.includes('customerId')) return;
      const before = typeof previous.customerId === 'string' ? previous.customerId : null;
      const after = ticket.customerId;
      await consumeOnce(conn, CONSUMER, e, async (session) => {
        if (before) await customers.adjustTicketCount(e, before, -1, session);
        if (after) await customers.adjustTicketCount(e, after, 1, session);
      });
    },

    async deleted(e: TypedEvent<'ticket.deleted'>) {
      const { customerId } = e.data;
      if (!customerId) return;
      await consumeOnce(conn, CONSUMER, e, async (session) => {
        await customers.adjustTicketCount(e, customerId, -1, session);
      });
    },

    /** A message is the ticket's customer's when its sender is `customer` and it is public. */
    async messageAdded(e: TypedEvent<'ticket.message_added'>) {
      const { ticket, message } = e.data;
      const customerId = ticket.customerId;
      if (!customerId || message.sender !== 'customer' || message.isInternal) return;
      await consumeOnceEmitting(conn, CONSUMER, e, async (session, emit) => {
        await customers.addMessages(e, customerId, [message], session, emit);
      });
    },
  };
}
