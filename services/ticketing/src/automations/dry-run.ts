import type { AutomationTestResult } from '@helpdesk/contracts';
import { ApiError, scoped, type RequestContext } from '@helpdesk/kit';
import type { TicketingModels } from '../collections';
import type { TicketDoc } from '../tickets/model';
import { ticketSnapshot } from '../tickets/view';
import { evaluateConditions } from './conditions';
import type { AutomationDoc } from './model';
import { planActions } from './plan';
import { findAutomationOr404, type MemberCheck } from './stored';
import { automationView } from './view';

/** `POST /automations/{id}/test`, the dry run: reads only (no transaction, no event, no count). */
export async function testAutomation(
  deps: { models: TicketingModels; members: MemberCheck },
  ctx: RequestContext,
  id: string,
  input: { resourceType: 'ticket'; resourceId: string },
): Promise<AutomationTestResult> {
  const rule = await findAutomationOr404(deps, ctx, id);
  const ticket = await scoped(deps.models, ctx).tickets.findOne({ _id: input.resourceId }).lean<TicketDoc>();
  if (!ticket) throw new ApiError('resource_not_found', `No such ticket: '${input.resourceId}'.`, 'resourceId');
  const { matched, results } = evaluateConditions(automationView(rule).conditions as AutomationDoc['conditions'], { ticket: ticketSnapshot(ticket) });
  const p = await planActions(deps.members, ctx, rule.actions, ticket);
  return {
    object: 'automation_test',
    ruleId: rule._id,
    resourceType: 'ticket',
    resourceId: ticket._id,
    wouldMatch: matched,
    conditionResults: results,
    actionsWouldExecute: p.outcomes,
  };
}
