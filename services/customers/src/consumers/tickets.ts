import type mongoose from 'mongoose';
import type { EventData, EventEnvelope } from '@helpdesk/contracts';
import { consumeOnce, consumeOnceEmitting, type Scope } from '@helpdesk/kit';
import type { CustomerService } from '../customers/service';

export const CONSUMER = 'customers';

/**
 * What ticket events do to customers. `ticketCount` is a derived counter: +1/-1 increments commute,
 * so the order events arrive in does not matter, a customer that does not exist is left alone, and
 * no customer event is published for it. Customer messages feed the calculated sentiment.
 */
export function ticketHandlers(conn: mongoose.Connection, customers: CustomerService) {
  const scopeOf = (e: EventEnvelope): Scope => ({ teamId: e.teamId, mode: e.mode });

  return {
    async created(e: EventEnvelope) {
      const { ticket, messages } = e.data as EventData<'ticket.created'>;
      if (!ticket.customerId) return;
      const customerId = ticket.customerId;
      await consumeOnceEmitting(conn, CONSUMER, e, async (session, emit) => {
        await customers.adjustTicketCount(scopeOf(e), customerId, 1, session);
        if (messages?.length) await customers.addMessages(scopeOf(e), customerId, messages, session, emit);
      });
    },

    /** A ticket moved from one customer to another (or linked, or unlinked). */
    async updated(e: EventEnvelope) {
      const { ticket, changes, previous } = e.data as EventData<'ticket.updated'>;
      if (!changes.includes('customerId')) return;
      const before = (previous.customerId as string | null | undefined) ?? null;
      const after = ticket.customerId;
      await consumeOnce(conn, CONSUMER, e, async (session) => {
        if (before) await customers.adjustTicketCount(scopeOf(e), before, -1, session);
        if (after) await customers.adjustTicketCount(scopeOf(e), after, 1, session);
      });
    },

    async deleted(e: EventEnvelope) {
      const { customerId } = e.data as EventData<'ticket.deleted'>;
      if (!customerId) return;
      await consumeOnce(conn, CONSUMER, e, async (session) => {
        await customers.adjustTicketCount(scopeOf(e), customerId, -1, session);
      });
    },

    /** A message is the ticket's customer's when its sender is `customer` and it is public. */
    async messageAdded(e: EventEnvelope) {
      const { ticket, message } = e.data as EventData<'ticket.message_added'>;
      if (!ticket.customerId || message.sender !== 'customer' || message.isInternal) return;
      const customerId = ticket.customerId;
      await consumeOnceEmitting(conn, CONSUMER, e, async (session, emit) => {
        await customers.addMessages(scopeOf(e), customerId, [message], session, emit);
      });
    },
  };
}
