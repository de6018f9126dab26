import { SESSION_IDLE_TIMEOUT_MS, type SessionSnapshot } from '@helpdesk/contracts';
import type { Unscoped } from '@helpdesk/kit';
import type { SessionDoc } from './model';

/** When the session ends unless used again: the idle timeout after its last use, never after its maximum age. */
export const idleExpiryOf = (s: Pick<SessionDoc, 'lastUsedAt' | 'expiresAt'>) =>
  new Date(Math.min(s.lastUsedAt.getTime() + SESSION_IDLE_TIMEOUT_MS, s.expiresAt.getTime()));

/** A session as events carry it: never its token's hash. */
export function sessionSnapshot(s: Unscoped<SessionDoc>): SessionSnapshot {
  return {
    id: s._id,
    memberId: s.memberId,
    mode: s.partition,
    userAgent: s.userAgent,
    createdAt: s.createdAt.toISOString(),
    lastUsedAt: s.lastUsedAt.toISOString(),
    idleExpiresAt: idleExpiryOf(s).toISOString(),
    expiresAt: s.expiresAt.toISOString(),
    endedAt: s.endedAt ? s.endedAt.toISOString() : null,
    endReason: s.endReason,
  };
}

/** A session as listed: `current` when it is the one making the call. */
export function sessionView(s: Unscoped<SessionDoc>, currentSessionId: string | null) {
  const { endedAt: _endedAt, endReason: _endReason, ...rest } = sessionSnapshot(s);
  return { object: 'session' as const, ...rest, current: s._id === currentSessionId };
}
