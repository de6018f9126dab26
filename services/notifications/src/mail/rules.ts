import { randomUUID } from 'node:crypto';
import type mongoose from 'mongoose';
import type { EventEnvelope } from '@helpdesk/contracts';
import { afterCommit, scoped, WorkSignal, type TypedEvent, type Unscoped } from '@helpdesk/kit';
import type { NotificationsModels } from '../collections';
import type { InvitationMail, MailDoc, NotificationMail, ReplyMail, SignInMail } from './model';

/** The mail outbox's writes: rows the worker (./worker.ts) sends. */
export function mailRules({ models }: { models: NotificationsModels }) {
  /** Wakes the mail worker once a queued row committed (docs/adr/0070). */
  const queued = new WorkSignal();
  /** Queues one message, in the caller's transaction; the unique (event, recipient) index makes it once per event. */
  async function queue(
    e: Pick<EventEnvelope, 'id' | 'teamId' | 'mode'>,
    to: string,
    content:
      | { kind: 'invitation'; invitation: InvitationMail }
      | { kind: 'notification'; notification: NotificationMail }
      | { kind: 'reply'; reply: ReplyMail }
      | { kind: 'sign_in'; signIn: SignInMail },
    session: mongoose.ClientSession,
  ) {
    const now = new Date();
    const row: Unscoped<MailDoc> = {
      _id: randomUUID(),
      to,
      sourceEventId: e.id,
      invitation: null,
      notification: null,
      ...content,
      status: 'queued',
      attempts: 0,
      nextAttemptAt: now,
      leaseUntil: new Date(0),
      lastError: null,
      sentAt: null,
      createdAt: now,
    };
    await scoped(models, e).mails.create([row], { session });
    afterCommit(session, () => queued.signal());
  }

  return {
    queued,
    /** The invitation message of `member.invited`. */
    queueInvitation(e: TypedEvent<'member.invited'>, session: mongoose.ClientSession) {
      const { invite, teamName, inviterName } = e.data;
      const invitation = { inviteId: invite.id, teamName, inviterName, role: invite.role, expiresAt: invite.expiresAt };
      return queue(e, invite.email, { kind: 'invitation', invitation }, session);
    },

    /** The sign-in mail of `sign_in_link.requested` (a link for the operator is handed over, never mailed; docs/adr/0068). */
    queueSignIn(e: TypedEvent<'sign_in_link.requested'>, session: mongoose.ClientSession) {
      const { signInLink, teamName, memberName } = e.data;
      if (signInLink.delivery !== 'mail') return Promise.resolve();
      const signIn = { signInLinkId: signInLink.id, teamName, memberName, expiresAt: signInLink.expiresAt };
      return queue(e, signInLink.email, { kind: 'sign_in', signIn }, session);
    },

    /** The email of a notification, for a member who turned notification emails on. */
    queueNotification(e: EventEnvelope, to: string, notification: NotificationMail, session: mongoose.ClientSession) {
      return queue(e, to, { kind: 'notification', notification }, session);
    },

    /** An agent's public reply on an email ticket, to the ticket's customer (docs/adr/0041). */
    queueReply(e: EventEnvelope, reply: ReplyMail, session: mongoose.ClientSession) {
      return queue(e, reply.thread.to, { kind: 'reply', reply }, session);
    },
  };
}
export type MailRules = ReturnType<typeof mailRules>;
