import type mongoose from 'mongoose';
import { AUTOMATIONS_MAX, type AutomationSnapshot, type CreateAutomationInput } from '@helpdesk/contracts';
import { conflict, eventScopeOf, newId, scoped, withOutbox, type RequestContext, type Unscoped } from '@helpdesk/kit';
import type { TicketingModels } from '../collections';
import type { AutomationDoc } from './model';
import { checkMembers, type MemberCheck } from './stored';
import { ruleWrite, type AutomationTriggers } from './triggers';
import { automationView } from './view';

export interface AutomationWriteDeps {
  conn: mongoose.Connection;
  models: TicketingModels;
  members: MemberCheck;
  automationTriggers: AutomationTriggers;
}

/** `POST /automations`: the new rule goes last; a team has at most AUTOMATIONS_MAX. */
export async function createAutomation(deps: AutomationWriteDeps, ctx: RequestContext, input: CreateAutomationInput): Promise<AutomationSnapshot> {
  const actions = input.actions ?? [];
  await checkMembers(deps.members, ctx, actions);
  const db = scoped(deps.models, ctx);
  return ruleWrite(deps.automationTriggers, ctx, () => withOutbox(deps.conn, eventScopeOf(ctx), async (session, emit) => {
    const count = await db.automations.countDocuments({}).session(session);
    if (count >= AUTOMATIONS_MAX) throw conflict(`A team has at most ${AUTOMATIONS_MAX} automation rules; delete one first.`);
    const last = await db.automations.findOne({}).sort({ position: -1 }).session(session).lean<AutomationDoc>();
    const now = new Date();
    const doc: Unscoped<AutomationDoc> = {
      _id: newId('rule'),
      name: input.name,
      triggerEvent: input.triggerEvent,
      conditions: { all: input.conditions?.all ?? [], any: input.conditions?.any ?? [] },
      actions,
      enabled: input.enabled ?? true,
      executionCount: 0,
      position: last ? last.position + 1 : 0,
      lastExecutedAt: null,
      createdAt: now,
      updatedAt: now,
    };
    await db.automations.insertMany([doc], { session, lean: true });
    const view = automationView(doc);
    emit({ type: 'automation.created', data: { automation: view } });
    return view;
  }));
}
