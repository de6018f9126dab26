import { TICKETING_AUTOMATIONS } from '@helpdesk/contracts';
import { handlersFor } from '@helpdesk/kit';
import { createAutomation, type AutomationWriteDeps } from './create';
import { testAutomation } from './dry-run';
import { getAutomation, listAutomationExecutions, listAutomations } from './read';
import { removeAutomation } from './remove';
import { updateAutomation } from './update';

/** `/teams/{teamId}/automations…` (docs/adr/0028). */
export const automationHandlers = (deps: AutomationWriteDeps) =>
  handlersFor(TICKETING_AUTOMATIONS)({
    listAutomations: ({ ctx }) => listAutomations(deps, ctx),
    createAutomation: ({ ctx, body }) => createAutomation(deps, ctx, body),
    getAutomation: ({ ctx, params }) => getAutomation(deps, ctx, params.ruleId),
    updateAutomation: ({ ctx, params, body }) => updateAutomation(deps, ctx, params.ruleId, body),
    deleteAutomation: ({ ctx, params }) => removeAutomation(deps, ctx, params.ruleId),
    testAutomation: ({ ctx, params, body }) => testAutomation(deps, ctx, params.ruleId, body),
    listAutomationExecutions: ({ ctx, params, query }) => listAutomationExecutions(deps, ctx, params.ruleId, query),
  });
