import { TICKETING } from '@helpdesk/contracts';
import { handlersFor } from '@helpdesk/kit';
import type { CustomerClient } from '../customer-refs/rules';
import { createTicket, type CreateTicketDeps } from './create';
import { getTicket } from './get';
import { listTickets } from './list';
import { removeTicket } from './remove';
import { updateTicket, type UpdateTicketDeps } from './update';

/** `/teams/{teamId}/tickets…`: the team and partition come from the internal token, never the URL. */
export const ticketHandlers = (deps: CreateTicketDeps & UpdateTicketDeps & { customers: CustomerClient }) =>
  handlersFor(TICKETING)({
    listTickets: ({ ctx, query }) => listTickets(deps, ctx, query),
    createTicket: ({ ctx, body, token }) => createTicket(deps, ctx, body, deps.customers.forRequest(token, ctx.requestId)),
    getTicket: ({ ctx, params, query }) => getTicket(deps, ctx, params.ticketId, query),
    updateTicket: ({ ctx, params, body, token }) => updateTicket(deps, ctx, params.ticketId, body, deps.customers.forRequest(token, ctx.requestId)),
    deleteTicket: ({ ctx, params }) => removeTicket(deps, ctx, params.ticketId),
  });
