import type mongoose from 'mongoose';
import { eventScopeOf, foundOr404, scoped, withOutbox, type RequestContext } from '@helpdesk/kit';
import type { TicketingModels } from '../collections';
import type { TicketDoc } from './model';
import { ticketSnapshot } from './view';

/** `DELETE /tickets/{id}`: the ticket and its messages, with `ticket.deleted`. */
export async function removeTicket(deps: { conn: mongoose.Connection; models: TicketingModels }, ctx: RequestContext, id: string): Promise<{ id: string; deleted: true }> {
  const db = scoped(deps.models, ctx);
  await withOutbox(deps.conn, eventScopeOf(ctx), async (session, emit) => {
    // The ticket first: that write holds it, so a message being added concurrently either lands
    // before (and is deleted below) or conflicts and then finds no ticket.
    const cur = await foundOr404(db.tickets.findOneAndDelete({ _id: id }, { session }).lean<TicketDoc>(), 'ticket', id);
    await db.messages.deleteMany({ ticketId: id }, { session });
    emit({ type: 'ticket.deleted', data: { ticketId: id, customerId: cur.customerId ?? null, ticket: ticketSnapshot(cur) } });
  });
  return { id, deleted: true };
}
