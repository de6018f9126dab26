import type { InviteSnapshot } from '@helpdesk/contracts';
import type { InviteDoc } from './model';

/** The spec's Invite (`id`, `email`, `role`, `status`, `createdAt`) plus who invited and until when. */
export function inviteView(i: Omit<InviteDoc, 'teamId' | 'mode'>, now = new Date()): InviteSnapshot {
  return {
    id: i._id,
    email: i.email,
    role: i.role,
    status: i.status === 'pending' && i.expiresAt <= now ? 'expired' : i.status,
    invitedBy: i.invitedBy,
    message: { status: i.message.status, at: i.message.at ? i.message.at.toISOString() : null, error: i.message.error },
    expiresAt: i.expiresAt.toISOString(),
    createdAt: i.createdAt.toISOString(),
  };
}
