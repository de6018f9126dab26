import { SLA_RULES_MAX, type CreateSlaRuleInput, type SlaRuleView } from '@helpdesk/contracts';
import { conflict, eventScopeOf, newId, scoped, withOutbox, type RequestContext, type Unscoped } from '@helpdesk/kit';
import type { SlaRuleDoc } from './model';
import { slaRuleWrite } from './stored';
import { slaRuleSnapshot, slaRuleView } from './view';
import type { SlaRuleWriteDeps } from './write';

/** `POST /sla/rules`: the new rule is evaluated last; a partition has at most SLA_RULES_MAX. */
export async function createSlaRule(deps: SlaRuleWriteDeps, ctx: RequestContext, input: CreateSlaRuleInput): Promise<SlaRuleView> {
  const db = scoped(deps.models, ctx);
  const rule = await slaRuleWrite(deps.enabledSlaRules, ctx, () => withOutbox(deps.conn, eventScopeOf(ctx), async (session, emit) => {
    // Counting inside the transaction: two creates at once both see each other's insert or conflict.
    const count = await db.slaRules.countDocuments({}).session(session);
    if (count >= SLA_RULES_MAX) throw conflict(`A team has at most ${SLA_RULES_MAX} SLA rules per partition; delete one first.`);
    const last = await db.slaRules.findOne({}, { position: 1 }).sort({ position: -1 }).session(session).lean<Pick<SlaRuleDoc, 'position'>>();
    const now = deps.clock.now();
    const doc: Unscoped<SlaRuleDoc> = { _id: newId('sla'), ...input, name: input.name.trim(), position: last ? last.position + 1 : 0, createdAt: now, updatedAt: now };
    await db.slaRules.insertMany([doc], { session, lean: true });
    emit({ type: 'sla_rule.created', data: { rule: slaRuleSnapshot(doc) } });
    return doc;
  }));
  return slaRuleView(rule);
}
