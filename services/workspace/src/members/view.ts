import { ROLE_DISPLAY_NAMES, ROLE_PERMISSIONS, type MemberSnapshot } from '@helpdesk/contracts';
import type { MemberDoc } from './model';

/** The public Member (and the event snapshot): the role's game title and permission set come from contracts. */
export function memberView(m: Omit<MemberDoc, 'teamId' | 'mode'>): MemberSnapshot {
  return {
    id: m._id,
    userId: m.userId,
    name: m.name,
    email: m.email,
    avatarUrl: m.avatarUrl,
    role: m.role,
    roleDisplayName: ROLE_DISPLAY_NAMES[m.role],
    permissions: [...ROLE_PERMISSIONS[m.role]],
    level: m.level,
    xp: m.xp,
    joinedAt: m.joinedAt.toISOString(),
  };
}
