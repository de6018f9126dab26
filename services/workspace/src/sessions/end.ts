import type mongoose from 'mongoose';
import { SESSION_IDLE_TIMEOUT_MS, type SessionEndReason } from '@helpdesk/contracts';
import { scoped, type Emit, type Unscoped } from '@helpdesk/kit';
import type { WorkspaceModels } from '../collections';
import type { SessionDoc } from './model';
import { sessionSnapshot } from './view';

/** What an open session matches at `now`: not ended, not past its maximum age, used within the idle timeout. */
export const openAt = (now: Date) => ({ endedAt: null, expiresAt: { $gt: now }, lastUsedAt: { $gt: new Date(now.getTime() - SESSION_IDLE_TIMEOUT_MS) } });

/** Ends one open session inside the caller's transaction, with its `session.ended`; false when it had ended meanwhile. */
export async function endSession(
  models: WorkspaceModels,
  s: Unscoped<SessionDoc> & { teamId: string },
  reason: SessionEndReason,
  session: mongoose.ClientSession,
  emit: Emit,
): Promise<boolean> {
  const now = new Date();
  const done = await scoped(models, { teamId: s.teamId }).sessions.updateOne({ _id: s._id, endedAt: null }, { $set: { endedAt: now, endReason: reason } }, { session });
  if (done.modifiedCount === 0) return false;
  emit({ type: 'session.ended', data: { session: sessionSnapshot({ ...s, endedAt: now, endReason: reason }), reason } });
  return true;
}

/**
 * Ends every open session of a member, in the transaction that removes the member or changes their
 * role (docs/adr/0068): the gateway refuses their cookies once its short cache lapses.
 */
export async function endMemberSessions(
  models: WorkspaceModels,
  teamId: string,
  memberId: string,
  reason: SessionEndReason,
  session: mongoose.ClientSession,
  emit: Emit,
): Promise<void> {
  const open = await scoped(models, { teamId }).sessions.find({ memberId, ...openAt(new Date()) }).session(session).lean<SessionDoc[]>();
  for (const s of open) await endSession(models, s, reason, session, emit);
}
