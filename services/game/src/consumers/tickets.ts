import { consumeOnce, on, type Subscription } from '@helpdesk/kit';
import type mongoose from 'mongoose';
import { CONSUMER, type TicketBatches } from '../tickets/batch';
import type { GameTicketRules } from '../tickets/rules';

/**
 * Ticket snapshots, and the closes that pay the member who closed them (the event's actor), once per
 * ticket, ever: applied in micro-batches of what arrives together, one transaction each (tickets/batch.ts).
 */
export function ticketSubscriptions(conn: mongoose.Connection, tickets: GameTicketRules, batches: TicketBatches): Subscription[] {
  return [
    on('ticket.created', (e) => batches.submit(e)),
    on('ticket.updated', (e) => batches.submit(e)),
    on('ticket.closed', (e) => batches.submit(e)),
    on('ticket.deleted', (e) => consumeOnce(conn, CONSUMER, e, (s) => tickets.markDeleted(e, e.data.ticketId, s)).then(() => {})),
  ];
}
