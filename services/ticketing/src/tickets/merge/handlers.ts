import { TICKETING } from '@helpdesk/contracts';
import { handlersFor } from '@helpdesk/kit';
import type { TicketingRules } from '../../rules';

/** `/teams/{teamId}/tickets/{ticketId}/merge`. */
export const mergeHandlers = ({ merges }: TicketingRules) =>
  handlersFor(TICKETING)({
    mergeTickets: ({ ctx, params, body }) => merges.merge(ctx, params.ticketId, body),
  });
