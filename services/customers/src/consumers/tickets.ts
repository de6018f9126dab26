import type mongoose from 'mongoose';
import { consumeBatchesOnce, type Scope, type TypedEvent } from '@helpdesk/kit';
import type { MessageSnapshot } from '@helpdesk/contracts';
import type { CustomerRules } from '../customers/rules';

/** The consumer name events are de-duplicated under (`processed_events`: `customers:<event id>`). */
export const CONSUMER = 'customers';

/** A ticket event whose `type` tells its data apart. */
type Of<T extends 'ticket.created' | 'ticket.updated' | 'ticket.deleted' | 'ticket.message_added'> = TypedEvent<T> & { type: T };
export type TicketEvent = Of<'ticket.created'> | Of<'ticket.updated'> | Of<'ticket.deleted'> | Of<'ticket.message_added'>;

/** What one ticket event does to `ticketCount`: +1 / -1 per customer. */
function countChanges(e: TicketEvent): [customerId: string, delta: number][] {
  switch (e.type) {
    case 'ticket.created':
      return e.data.ticket.customerId ? [[e.data.ticket.customerId, 1]] : [];
    case 'ticket.updated': {
      const before = typeof e.data.previous.customerId === 'string' ? e.data.previous.customerId : null;
      const after = e.data.ticket.customerId;
      return [...(before ? [[before, -1] as [string, number]] : []), ...(after ? [[after, 1] as [string, number]] : [])];
    }
    case 'ticket.deleted':
      return e.data.customerId ? [[e.data.customerId, -1]] : [];
    default:
      return [];
  }
}

/** The messages one ticket event gives the ticket's customer's sentiment (addMessages keeps the customer's own public ones). */
function messagesOf(e: TicketEvent): { customerId: string; messages: MessageSnapshot[] } | null {
  if (e.type === 'ticket.created') {
    const { ticket, messages } = e.data;
    return ticket.customerId && messages?.length ? { customerId: ticket.customerId, messages } : null;
  }
  if (e.type === 'ticket.message_added') return e.data.ticket.customerId ? { customerId: e.data.ticket.customerId, messages: [e.data.message] } : null;
  return null;
}

/**
 * What ticket events do to customers. `ticketCount` is a derived counter: +1/-1 increments commute,
 * so the order events arrive in does not matter, a customer that does not exist is left alone, and
 * no customer event is published for it. Customer messages feed the calculated sentiment.
 *
 * The events that concern a customer are applied in micro-batches (kit's consumeBatchesOnce, docs/adr/0047):
 * what arrives together is ONE transaction: one `processed_events` insert (`customers:<event id>`, as
 * consumeOnce records them, so a redelivery is skipped whether it comes in a batch or alone), one
 * bulk of `$inc` updates (the batch's increments summed per customer), then each event's customer
 * messages in arrival order, with the customer.updated they cause. The counts and the sentiment end
 * as applied one by one; a customer.updated emitted in a batch shows the customer as the batch
 * leaves it (its ticketCount counts the whole batch's tickets). A batch that fails is applied again
 * one event at a time, so a bad or repeated event fails or is skipped alone.
 */
export function ticketConsumers(conn: mongoose.Connection, customers: CustomerRules) {
  const batches = consumeBatchesOnce<TicketEvent>(conn, CONSUMER, async (events, session, emitFor) => {
    const sums = new Map<string, { scope: Scope; customerId: string; delta: number }>();
    for (const e of events) {
      for (const [customerId, delta] of countChanges(e)) {
        const key = `${e.teamId}:${e.mode}:${customerId}`;
        const sum = sums.get(key) ?? { scope: { teamId: e.teamId, mode: e.mode }, customerId, delta: 0 };
        sum.delta += delta;
        sums.set(key, sum);
      }
    }
    // A ticket moved away and back in the same batch changes nothing: no update for it.
    await customers.adjustTicketCounts([...sums.values()].filter((s) => s.delta !== 0), session);
    for (const e of events) {
      const given = messagesOf(e);
      if (given) await customers.addMessages(e, given.customerId, given.messages, session, emitFor(e));
    }
  });
  /** The event in the next batch (its handler settles with that batch); nothing for an event that concerns no customer. */
  const submit = (e: TypedEvent<TicketEvent['type']>, concerns: boolean): Promise<void> => (concerns ? batches.submit(e as TicketEvent) : Promise.resolve());

  return {
    created: (e: TypedEvent<'ticket.created'>) => submit(e, !!e.data.ticket.customerId),
    /** A ticket moved from one customer to another (or linked, or unlinked). */
    updated: (e: TypedEvent<'ticket.updated'>) => submit(e, e.data.changes.includes('customerId')),
    deleted: (e: TypedEvent<'ticket.deleted'>) => submit(e, !!e.data.customerId),
    /** A message is the ticket's customer's when its sender is `customer` and it is public. */
    messageAdded: (e: TypedEvent<'ticket.message_added'>) => submit(e, !!e.data.ticket.customerId && e.data.message.sender === 'customer' && !e.data.message.isInternal),
    /** Batches applied, the events in them, the largest, and batches applied again one by one (for tests and benchmarks). */
    stats: () => batches.stats(),
  };
}
