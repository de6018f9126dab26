import type mongoose from 'mongoose';
import type { ActionInput } from '@helpdesk/contracts';
import { foundOr404, scoped, type Scope } from '@helpdesk/kit';
import type { TicketingModels } from '../collections';
import type { AutomationDoc } from './model';

/** The rules' order: position, then age. */
export const ORDER = { position: 1, createdAt: 1, _id: 1 } as const;

/** Checks a member id against the team's members (a 400 on `param` when not a current member). */
export interface MemberCheck {
  assertMember(scope: Pick<Scope, 'teamId'>, memberId: string, param?: string): Promise<void>;
}

export const findAutomationOr404 = async ({ models }: { models: TicketingModels }, scope: Scope, id: string, session?: mongoose.ClientSession) =>
  foundOr404(scoped(models, scope).automations.findOne({ _id: id }).session(session ?? null).lean<AutomationDoc>(), 'automation', id);

/** Every member an action names must be a current member of the team (400 on `actions.N.memberId`). */
export async function checkMembers(members: MemberCheck, scope: Scope, actions: ActionInput[]): Promise<void> {
  for (const [i, a] of actions.entries()) {
    if ((a.type === 'assign' || a.type === 'notify_member') && a.memberId) await members.assertMember(scope, a.memberId, `actions.${i}.memberId`);
  }
}

/** Rewrites the positions 0..n-1 in the given order. */
export async function renumber({ models }: { models: TicketingModels }, scope: Scope, ordered: string[], session: mongoose.ClientSession): Promise<void> {
  if (!ordered.length) return;
  await scoped(models, scope).automations.bulkWrite(
    ordered.map((id, position) => ({ updateOne: { filter: { _id: id }, update: { $set: { position } } } })),
    { session },
  );
}
