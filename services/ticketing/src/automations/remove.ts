import { eventScopeOf, foundOr404, scoped, withOutbox, type RequestContext } from '@helpdesk/kit';
import type { AutomationWriteDeps } from './create';
import type { AutomationDoc } from './model';
import { ORDER, renumber } from './stored';
import { ruleWrite } from './triggers';
import { automationView } from './view';

/** `DELETE /automations/{id}`: the rule and its execution log; the others are renumbered. */
export async function removeAutomation(deps: Omit<AutomationWriteDeps, 'members'>, ctx: RequestContext, id: string): Promise<{ id: string; deleted: true }> {
  const db = scoped(deps.models, ctx);
  await ruleWrite(deps.automationTriggers, ctx, () => withOutbox(deps.conn, eventScopeOf(ctx), async (session, emit) => {
    const cur = await foundOr404(db.automations.findOneAndDelete({ _id: id }, { session }).lean<AutomationDoc>(), 'automation', id);
    await db.executions.deleteMany({ ruleId: id }, { session });
    const rest = (await db.automations.find({}, { _id: 1 }).sort(ORDER).session(session).lean<{ _id: string }[]>()).map((r) => r._id);
    await renumber(deps, ctx, rest, session);
    emit({ type: 'automation.deleted', data: { automationId: id, automation: automationView(cur) } });
  }));
  return { id, deleted: true };
}
