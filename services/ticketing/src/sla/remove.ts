import { eventScopeOf, foundOr404, scoped, withOutbox, type RequestContext } from '@helpdesk/kit';
import type { SlaRuleDoc } from './model';
import { orderedSlaRules, renumberSlaRules, slaRuleWrite } from './stored';
import { slaRuleSnapshot } from './view';
import type { SlaRuleWriteDeps } from './write';

/** `DELETE /sla/rules/{id}`: the others are renumbered. */
export async function removeSlaRule(deps: SlaRuleWriteDeps, ctx: RequestContext, id: string): Promise<{ id: string; deleted: true }> {
  const db = scoped(deps.models, ctx);
  await slaRuleWrite(deps.enabledSlaRules, ctx, () => withOutbox(deps.conn, eventScopeOf(ctx), async (session, emit) => {
    const cur = await foundOr404(db.slaRules.findOneAndDelete({ _id: id }, { session }).lean<SlaRuleDoc>(), 'sla_rule', id);
    const rest = await orderedSlaRules(deps, ctx, session);
    await renumberSlaRules(deps, ctx, rest.map((r) => r._id), session, deps.clock.now());
    emit({ type: 'sla_rule.deleted', data: { ruleId: id, rule: slaRuleSnapshot(cur) } });
  }));
  return { id, deleted: true };
}
