import { ROLE_DISPLAY_NAMES, ROLE_PERMISSIONS, type MemberSnapshot, type Partition } from '@helpdesk/contracts';
import type { MemberDoc } from './model';

/**
 * The public Member (and the event snapshot): the role's game title and permission set come from
 * contracts. `level` and `xp` are the game of `mode`'s partition (docs/adr/0033): a test key
 * sees the test partition's progress, a live key (and every event) the live partition's, the team's game.
 */
export function memberView(m: Omit<MemberDoc, 'teamId' | 'mode'>, mode: Partition = 'live'): MemberSnapshot {
  return {
    id: m._id,
    userId: m.userId,
    name: m.name,
    email: m.email,
    avatarUrl: m.avatarUrl,
    role: m.role,
    roleDisplayName: ROLE_DISPLAY_NAMES[m.role],
    permissions: [...ROLE_PERMISSIONS[m.role]],
    level: mode === 'test' ? (m.testLevel ?? 1) : m.level,
    xp: mode === 'test' ? (m.testXp ?? 0) : m.xp,
    joinedAt: m.joinedAt.toISOString(),
  };
}
