import type { SlaRuleView, UpdateSlaRuleInput } from '@helpdesk/contracts';
import { changeSet, eventScopeOf, scoped, withOutbox, type RequestContext } from '@helpdesk/kit';
import { slaRuleOr404, slaRuleWrite } from './stored';
import { slaRuleSnapshot, slaRuleView } from './view';
import type { SlaRuleWriteDeps } from './write';

/** `PATCH /sla/rules/{id}`: the fields sent, with `sla_rule.updated` when any changed. */
export async function updateSlaRule(deps: SlaRuleWriteDeps, ctx: RequestContext, id: string, input: UpdateSlaRuleInput): Promise<SlaRuleView> {
  const db = scoped(deps.models, ctx);
  const rule = await slaRuleWrite(deps.enabledSlaRules, ctx, () => withOutbox(deps.conn, eventScopeOf(ctx), async (session, emit) => {
    const cur = await slaRuleOr404(deps, ctx, id, session);
    const { set, previous, change, changes, applyDefined } = changeSet(cur);
    if (input.name !== undefined) change('name', input.name.trim());
    applyDefined(input, ['priorityKey', 'responseTimeMinutes', 'resolutionTimeMinutes', 'use24x7', 'enabled']);
    const changed = changes();
    if (!changed.length) return cur;
    set.updatedAt = deps.clock.now();
    await db.slaRules.updateOne({ _id: id }, { $set: set }, { session });
    const next = { ...cur, ...set };
    emit({ type: 'sla_rule.updated', data: { rule: slaRuleSnapshot(next), changes: changed, previous } });
    return next;
  }));
  return slaRuleView(rule);
}
