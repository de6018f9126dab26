import { TICKETING_AUTOMATIONS } from '@helpdesk/contracts';
import { handlersFor } from '@helpdesk/kit';
import type { TicketingRules } from '../rules';

/** `/teams/{teamId}/analytics…` (docs/adr/0030). */
export const analyticsHandlers = ({ analytics }: TicketingRules) =>
  handlersFor(TICKETING_AUTOMATIONS)({
    getAnalytics: ({ ctx, query }) => analytics.overview(ctx, query),
    getAgentAnalytics: ({ ctx, query }) => analytics.agents(ctx, query),
  });
