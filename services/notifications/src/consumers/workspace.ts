import type mongoose from 'mongoose';
import { consumeOnce, consumeOnceEmitting, type TypedEvent } from '@helpdesk/kit';
import type { MailRules } from '../mail/rules';
import type { TeamMemberRules } from '../members/rules';
import type { NotificationRules } from '../notifications/rules';
import { CONSUMER } from './consumer';

/** The workspace service's events: the member list this service resolves `userId` and mentions with, invitations to send, accepted invites. */
export function workspaceConsumers(conn: mongoose.Connection, members: TeamMemberRules, notifications: NotificationRules, mail: MailRules) {
  const upsert = async (e: TypedEvent<'member.joined' | 'member.role_changed'>) => {
    await consumeOnce(conn, CONSUMER, e, (session) => members.upsert(e.teamId, e.data.member, session));
  };
  return {
    joined: upsert,
    roleChanged: upsert,
    async removed(e: TypedEvent<'member.removed'>) {
      await consumeOnce(conn, CONSUMER, e, (session) => members.remove(e.teamId, e.data.member, session));
    },
    async preferencesUpdated(e: TypedEvent<'member.preferences_updated'>) {
      await consumeOnce(conn, CONSUMER, e, (session) => members.setPreferences(e.teamId, e.data.memberId, e.data.preferences, session));
    },

    /** The invitation message, queued in the mail outbox once per event. */
    async invited(e: TypedEvent<'member.invited'>) {
      await consumeOnce(conn, CONSUMER, e, (session) => mail.queueInvitation(e, session));
    },

    /** The sign-in link's mail (docs/adr/0068), queued once per event. */
    async signInLinkRequested(e: TypedEvent<'sign_in_link.requested'>) {
      await consumeOnce(conn, CONSUMER, e, (session) => mail.queueSignIn(e, session));
    },

    /** `invite_accepted` for the member who sent the invite (none when the inviter was a key without a member, or has left). */
    async inviteAccepted(e: TypedEvent<'invite.accepted'>) {
      const { invite } = e.data;
      if (!invite.invitedBy) return;
      await consumeOnceEmitting(conn, CONSUMER, e, async (session, emit) => {
        const [inviter] = await members.byIds(e.teamId, [invite.invitedBy!], session);
        if (!inviter) return;
        await notifications.createFrom(
          e,
          [
            {
              memberId: inviter._id,
              type: 'invite_accepted',
              title: `${invite.email} accepted your invitation`,
              body: `${invite.email} joined the team as ${invite.role}.`,
              ticketId: null,
            },
          ],
          session,
          emit,
        );
      });
    },
  };
}
