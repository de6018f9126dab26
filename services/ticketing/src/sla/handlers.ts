import { TICKETING } from '@helpdesk/contracts';
import { handlersFor } from '@helpdesk/kit';
import { createSlaRule } from './create';
import { removeSlaRule } from './remove';
import { reorderSlaRules } from './reorder';
import { orderedSlaRules, slaRuleOr404 } from './stored';
import { updateSlaRule } from './update';
import { slaRuleView } from './view';
import type { SlaRuleWriteDeps } from './write';

/** `/teams/{teamId}/sla/rules…`. */
export const slaHandlers = (deps: SlaRuleWriteDeps) =>
  handlersFor(TICKETING)({
    listSlaRules: async ({ ctx }) => (await orderedSlaRules(deps, ctx)).map(slaRuleView),
    createSlaRule: ({ ctx, body }) => createSlaRule(deps, ctx, body),
    getSlaRule: async ({ ctx, params }) => slaRuleView(await slaRuleOr404(deps, ctx, params.ruleId)),
    updateSlaRule: ({ ctx, params, body }) => updateSlaRule(deps, ctx, params.ruleId, body),
    deleteSlaRule: ({ ctx, params }) => removeSlaRule(deps, ctx, params.ruleId),
    reorderSlaRules: ({ ctx, body }) => reorderSlaRules(deps, ctx, body),
  });
