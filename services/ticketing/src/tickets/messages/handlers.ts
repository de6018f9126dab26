import { TICKETING } from '@helpdesk/contracts';
import { handlersFor } from '@helpdesk/kit';
import type { TicketingRules } from '../../rules';

/** `/teams/{teamId}/tickets/{ticketId}/messages`. */
export const messageHandlers = ({ messages }: TicketingRules) =>
  handlersFor(TICKETING)({
    listMessages: ({ ctx, params, query }) => messages.list(ctx, params.ticketId, query),
    addMessage: ({ ctx, params, body }) => messages.add(ctx, params.ticketId, body),
  });
