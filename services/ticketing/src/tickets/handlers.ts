import { TICKETING } from '@helpdesk/contracts';
import { handlersFor } from '@helpdesk/kit';
import type { TicketingRules } from '../rules';

/** `/teams/{teamId}/tickets…`: the team and partition come from the internal token, never the URL. */
export const ticketHandlers = ({ tickets, customers }: TicketingRules) =>
  handlersFor(TICKETING)({
    listTickets: ({ ctx, query }) => tickets.list(ctx, query),
    createTicket: ({ ctx, body, token }) => tickets.create(ctx, body, customers.forRequest(token, ctx.requestId)),
    getTicket: ({ ctx, params, query }) => tickets.get(ctx, params.ticketId, query),
    updateTicket: ({ ctx, params, body, token }) => tickets.update(ctx, params.ticketId, body, customers.forRequest(token, ctx.requestId)),
    deleteTicket: ({ ctx, params }) => tickets.remove(ctx, params.ticketId),
  });
