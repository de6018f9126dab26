import { TICKETING_AUTOMATIONS } from '@helpdesk/contracts';
import { handlersFor } from '@helpdesk/kit';
import type { TicketingRules } from '../rules';

/** `/teams/{teamId}/automations…` (docs/adr/0028). */
export const automationHandlers = ({ automations }: TicketingRules) =>
  handlersFor(TICKETING_AUTOMATIONS)({
    listAutomations: ({ ctx }) => automations.list(ctx),
    createAutomation: ({ ctx, body }) => automations.create(ctx, body),
    getAutomation: ({ ctx, params }) => automations.get(ctx, params.ruleId),
    updateAutomation: ({ ctx, params, body }) => automations.update(ctx, params.ruleId, body),
    deleteAutomation: ({ ctx, params }) => automations.remove(ctx, params.ruleId),
    testAutomation: ({ ctx, params, body }) => automations.test(ctx, params.ruleId, body),
    listAutomationExecutions: ({ ctx, params, query }) => automations.executions(ctx, params.ruleId, query),
  });
