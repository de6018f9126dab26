import type { ReorderSlaRulesInput, SlaRuleView } from '@helpdesk/contracts';
import { eventScopeOf, parameterInvalid, withOutbox, type RequestContext } from '@helpdesk/kit';
import { orderedSlaRules, renumberSlaRules, slaRuleWrite } from './stored';
import { slaRuleView } from './view';
import type { SlaRuleWriteDeps } from './write';

/** `POST /sla/rules/reorder`: every rule of the partition, listed once, in its new evaluation order. */
export async function reorderSlaRules(deps: SlaRuleWriteDeps, ctx: RequestContext, input: ReorderSlaRulesInput): Promise<SlaRuleView[]> {
  const rules = await slaRuleWrite(deps.enabledSlaRules, ctx, () => withOutbox(deps.conn, eventScopeOf(ctx), async (session, emit) => {
    const cur = await orderedSlaRules(deps, ctx, session);
    const known = new Set(cur.map((r) => r._id));
    const unknown = input.ruleIds.find((id) => !known.has(id));
    if (unknown) throw parameterInvalid('ruleIds', `Invalid ruleIds: '${unknown}' is not an SLA rule of this team and partition.`);
    if (input.ruleIds.length !== cur.length) {
      const missing = cur.find((r) => !input.ruleIds.includes(r._id))!;
      throw parameterInvalid('ruleIds', `Invalid ruleIds: every rule must be listed once; '${missing._id}' is missing.`);
    }
    if (input.ruleIds.every((id, i) => cur[i]!._id === id)) return cur;
    const now = deps.clock.now();
    await renumberSlaRules(deps, ctx, input.ruleIds, session, now);
    emit({ type: 'sla_rule.reordered', data: { ruleIds: input.ruleIds } });
    const byId = new Map(cur.map((r) => [r._id, r]));
    return input.ruleIds.map((id, position) => ({ ...byId.get(id)!, position, updatedAt: now }));
  }));
  return rules.map(slaRuleView);
}
