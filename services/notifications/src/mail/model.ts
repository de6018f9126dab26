import mongoose from 'mongoose';
import { tenancyPlugin } from '@helpdesk/kit';
import type { EmailReplyThread, Partition } from '@helpdesk/contracts';

export const MAIL_STATUSES = ['queued', 'sent', 'failed', 'cancelled'] as const;
export type MailStatus = (typeof MAIL_STATUSES)[number];

/** What the invitation template needs (from `member.invited`); the link is asked for at send time. */
export interface InvitationMail {
  inviteId: string;
  teamName: string;
  inviterName: string | null;
  role: string;
  expiresAt: string;
}

/** What the sign-in mail needs (from `sign_in_link.requested`, docs/adr/0068); the link is asked for at send time. */
export interface SignInMail {
  signInLinkId: string;
  teamName: string;
  memberName: string;
  expiresAt: string;
}

/** What the notification template needs: the notification as it was made. */
export interface NotificationMail {
  notificationId: string;
  type: string;
  title: string;
  body: string;
  ticketId: string | null;
}

/**
 * What an agent's public reply on an email ticket needs (docs/adr/0041): the reply, and the recipient,
 * sender and threading headers ticketing answered when it was queued.
 */
export interface ReplyMail {
  ticketId: string;
  messageId: string;
  content: string;
  senderName: string | null;
  thread: EmailReplyThread;
}

/**
 * The mail outbox: one row per message to send, written in the same transaction as the event that
 * causes it is recorded as processed, then sent by the mail worker with retries (docs/adr/0020).
 * `{teamId, mode, sourceEventId, to}` is unique: a message is sent once per event. A work queue across
 * teams (like webhooks' deliveries): rows are written in their event's scope, and the worker claims due
 * rows of every team through the data layer's named way across teams (`acrossTeams(models).mails`).
 */
export interface MailDoc {
  _id: string;
  teamId: string;
  mode: Partition;
  kind: 'invitation' | 'notification' | 'reply' | 'sign_in';
  to: string;
  sourceEventId: string;
  invitation: InvitationMail | null;
  notification: NotificationMail | null;
  reply?: ReplyMail | null;
  signIn?: SignInMail | null;
  status: MailStatus;
  attempts: number;
  nextAttemptAt: Date;
  /** A worker that claimed the row sends it until then; a crashed worker's claim expires. */
  leaseUntil: Date;
  lastError: string | null;
  sentAt: Date | null;
  createdAt: Date;
}

const mailSchema = new mongoose.Schema<MailDoc>(
  {
    _id: { type: String, required: true },
    kind: { type: String, enum: ['invitation', 'notification', 'reply', 'sign_in'], required: true },
    to: { type: String, required: true },
    sourceEventId: { type: String, required: true },
    invitation: { type: mongoose.Schema.Types.Mixed, default: null },
    notification: { type: mongoose.Schema.Types.Mixed, default: null },
    reply: { type: mongoose.Schema.Types.Mixed, default: null },
    signIn: { type: mongoose.Schema.Types.Mixed, default: null },
    status: { type: String, enum: MAIL_STATUSES, required: true },
    attempts: { type: Number, required: true, default: 0 },
    nextAttemptAt: { type: Date, required: true },
    leaseUntil: { type: Date, required: true },
    lastError: { type: String, default: null },
    sentAt: { type: Date, default: null },
    createdAt: { type: Date, required: true },
  },
  { collection: 'mails', versionKey: false, minimize: false, strict: 'throw' },
);
mailSchema.plugin(tenancyPlugin);
mailSchema.index({ teamId: 1, mode: 1, sourceEventId: 1, to: 1 }, { unique: true });
// The worker's scan for due rows, across teams.
mailSchema.index({ status: 1, nextAttemptAt: 1, leaseUntil: 1 });

export type MailModel = mongoose.Model<MailDoc>;

export function mailModel(conn: mongoose.Connection): MailModel {
  return (conn.models.Mail as MailModel | undefined) ?? conn.model<MailDoc>('Mail', mailSchema);
}
