import type { AutomationSnapshot, ExecutionSnapshot, Page } from '@helpdesk/contracts';
import { findPage, scoped, type RequestContext } from '@helpdesk/kit';
import type { TicketingModels } from '../collections';
import type { AutomationDoc } from './model';
import { findAutomationOr404, ORDER } from './stored';
import { automationView, executionView } from './view';

type ReadDeps = { models: TicketingModels };

/** `GET /automations`: every rule of the partition, in order. */
export async function listAutomations({ models }: ReadDeps, ctx: RequestContext): Promise<AutomationSnapshot[]> {
  const rows = await scoped(models, ctx).automations.find({}).sort(ORDER).lean<AutomationDoc[]>();
  return rows.map(automationView);
}

export async function getAutomation(deps: ReadDeps, ctx: RequestContext, id: string): Promise<AutomationSnapshot> {
  return automationView(await findAutomationOr404(deps, ctx, id));
}

/** `GET /automations/{id}/executions`: the rule's execution log, a page at a time. */
export async function listAutomationExecutions(deps: ReadDeps, ctx: RequestContext, id: string, q: { page: number; pageSize: number }): Promise<Page<ExecutionSnapshot>> {
  await findAutomationOr404(deps, ctx, id);
  const { rows, pagination } = await findPage(scoped(deps.models, ctx).executions, { ruleId: id }, q);
  return { data: rows.map(executionView), pagination };
}
