import { TICKETING_AUTOMATIONS } from '@helpdesk/contracts';
import { handlersFor } from '@helpdesk/kit';
import type { Clock } from '../clock';
import type { TicketingModels } from '../collections';
import { agentAnalytics } from './agents';
import { analyticsOverview } from './overview';

/** `/teams/{teamId}/analytics…` (docs/adr/0030). */
export const analyticsHandlers = (deps: { models: TicketingModels; clock: Clock }) =>
  handlersFor(TICKETING_AUTOMATIONS)({
    getAnalytics: ({ ctx, query }) => analyticsOverview(deps, ctx, query),
    getAgentAnalytics: ({ ctx, query }) => agentAnalytics(deps, ctx, query),
  });
