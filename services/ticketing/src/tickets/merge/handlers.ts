import { TICKETING } from '@helpdesk/contracts';
import { handlersFor } from '@helpdesk/kit';
import { mergeTickets, type MergeTicketsDeps } from './merge';

/** `/teams/{teamId}/tickets/{ticketId}/merge`. */
export const mergeHandlers = (deps: MergeTicketsDeps) =>
  handlersFor(TICKETING)({
    mergeTickets: ({ ctx, params, body }) => mergeTickets(deps, ctx, params.ticketId, body),
  });
