import { randomUUID } from 'node:crypto';
import type mongoose from 'mongoose';
import type { TypedEvent } from '@helpdesk/kit';
import type { MailModel } from './model';

/** The mail outbox's writes: rows the worker (./worker.ts) sends. */
export function mailRules({ Mails }: { Mails: MailModel }) {
  return {
    /** The invitation message of `member.invited`, queued in the consumer's transaction (once per event). */
    async queueInvitation(e: TypedEvent<'member.invited'>, session: mongoose.ClientSession) {
      const { invite, teamName, inviterName } = e.data;
      const now = new Date();
      await Mails.create(
        [
          {
            _id: randomUUID(),
            teamId: e.teamId,
            mode: e.mode,
            kind: 'invitation',
            to: invite.email,
            sourceEventId: e.id,
            invitation: { inviteId: invite.id, teamName, inviterName, role: invite.role, expiresAt: invite.expiresAt },
            status: 'queued',
            attempts: 0,
            nextAttemptAt: now,
            leaseUntil: new Date(0),
            lastError: null,
            sentAt: null,
            createdAt: now,
          },
        ],
        { session },
      );
    },
  };
}
export type MailRules = ReturnType<typeof mailRules>;
