import type { AutomationSnapshot, UpdateAutomationInput } from '@helpdesk/contracts';
import { changeSet, eventScopeOf, scoped, withOutbox, type RequestContext } from '@helpdesk/kit';
import type { AutomationWriteDeps } from './create';
import { checkMembers, findAutomationOr404, ORDER, renumber } from './stored';
import { ruleWrite } from './triggers';
import { automationView } from './view';

/** `PATCH /automations/{id}`: the fields sent; a new `position` moves the rule and renumbers the others. */
export async function updateAutomation(deps: AutomationWriteDeps, ctx: RequestContext, id: string, input: UpdateAutomationInput): Promise<AutomationSnapshot> {
  if (input.actions) await checkMembers(deps.members, ctx, input.actions);
  const db = scoped(deps.models, ctx);
  return ruleWrite(deps.automationTriggers, ctx, () => withOutbox(deps.conn, eventScopeOf(ctx), async (session, emit) => {
    const cur = await findAutomationOr404(deps, ctx, id, session);
    const { set, previous, change, changes, applyDefined } = changeSet(cur);
    applyDefined(input, ['name', 'triggerEvent']);
    if (input.conditions !== undefined) change('conditions', { all: input.conditions.all ?? [], any: input.conditions.any ?? [] });
    applyDefined(input, ['actions', 'enabled']);
    if (input.position !== undefined) {
      const ordered = (await db.automations.find({}, { _id: 1 }).sort(ORDER).session(session).lean<{ _id: string }[]>()).map((r) => r._id);
      const from = ordered.indexOf(id);
      const to = Math.min(input.position, ordered.length - 1);
      if (from !== to) {
        ordered.splice(from, 1);
        ordered.splice(to, 0, id);
        await renumber(deps, ctx, ordered, session);
        previous.position = from;
        set.position = to;
      }
    }
    const changed = changes();
    if (!changed.length) return automationView(cur);
    set.updatedAt = new Date();
    await db.automations.updateOne({ _id: id }, { $set: set }, { session });
    const view = automationView({ ...cur, ...set });
    emit({ type: 'automation.updated', data: { automation: view, changes: changed, previous } });
    return view;
  }));
}
