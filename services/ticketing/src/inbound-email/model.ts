import mongoose from 'mongoose';
import { teamTenancyPlugin, tenancyPlugin } from '@helpdesk/kit';
import type { Partition } from '@helpdesk/contracts';

/** An attachment of an inbound mail: recorded by name and size, the bytes are not kept (docs/adr/0041). */
export interface MailAttachmentRecord {
  filename: string | null;
  contentType: string;
  size: number;
}

/**
 * One mail of a ticket's email thread, by its RFC 5322 Message-ID (lowercase, without `<>`): a
 * customer's mail that opened or continued the ticket (`in`). Written in the same transaction as the
 * ticket or message it made, so a mail delivered twice (an SMTP retry, a webhook retry) is found
 * here and makes nothing twice; a reply's In-Reply-To/References are looked up here.
 */
export interface EmailMailDoc {
  _id: string;
  teamId: string;
  mode: Partition;
  rfcMessageId: string;
  /** The Message-ID as the mail carried it (`<…>`, case kept): what our replies' In-Reply-To repeats. */
  messageIdHeader: string;
  ticketId: string;
  messageId: string;
  from: string;
  attachments: MailAttachmentRecord[];
  createdAt: Date;
}

const emailMailSchema = new mongoose.Schema<EmailMailDoc>(
  {
    _id: { type: String, required: true },
    rfcMessageId: { type: String, required: true },
    messageIdHeader: { type: String, required: true },
    ticketId: { type: String, required: true },
    messageId: { type: String, required: true },
    from: { type: String, required: true },
    attachments: { type: mongoose.Schema.Types.Mixed, default: () => [] },
    createdAt: { type: Date, required: true },
  },
  { collection: 'email_mails', versionKey: false, strict: 'throw' },
);
emailMailSchema.plugin(tenancyPlugin);
emailMailSchema.index({ teamId: 1, mode: 1, rfcMessageId: 1 }, { unique: true });
emailMailSchema.index({ teamId: 1, mode: 1, ticketId: 1, createdAt: 1 });

/**
 * A partition's inbound webhook secret (docs/adr/0041): its SHA-256 only, and during a rotation's
 * grace period the previous one's. One row per team and partition (`_id` = `<teamId>:<mode>`).
 */
export interface InboundSecretDoc {
  _id: string;
  teamId: string;
  mode: Partition;
  hash: string;
  hint: string;
  createdAt: Date;
  previousHash: string | null;
  previousValidUntil: Date | null;
}

const inboundSecretSchema = new mongoose.Schema<InboundSecretDoc>(
  {
    _id: { type: String, required: true },
    hash: { type: String, required: true },
    hint: { type: String, required: true },
    createdAt: { type: Date, required: true },
    previousHash: { type: String, default: null },
    previousValidUntil: { type: Date, default: null },
  },
  { collection: 'inbound_secrets', versionKey: false, strict: 'throw' },
);
inboundSecretSchema.plugin(tenancyPlugin);

/**
 * The team's name and support address, from `settings.updated` (workspace owns them): the From of
 * a reply mail. Settings are per team; the row keeps the newest event's time (order-safe).
 */
export interface TeamMailIdentityDoc {
  _id: string;
  teamName: string;
  supportEmail: string | null;
  eventAt: Date;
}

const teamMailIdentitySchema = new mongoose.Schema<TeamMailIdentityDoc>(
  {
    _id: { type: String, required: true },
    teamName: { type: String, required: true },
    supportEmail: { type: String, default: null },
    eventAt: { type: Date, required: true },
  },
  { collection: 'team_mail_identities', versionKey: false, strict: 'throw' },
);
// One row per team: its _id is the team's id.
teamMailIdentitySchema.plugin(teamTenancyPlugin, { key: '_id' });

export const inboundEmailModels = (conn: mongoose.Connection) => ({
  emailMails: (conn.models.EmailMail as mongoose.Model<EmailMailDoc> | undefined) ?? conn.model<EmailMailDoc>('EmailMail', emailMailSchema),
  inboundSecrets:
    (conn.models.InboundSecret as mongoose.Model<InboundSecretDoc> | undefined) ?? conn.model<InboundSecretDoc>('InboundSecret', inboundSecretSchema),
  teamMailIdentities:
    (conn.models.TeamMailIdentity as mongoose.Model<TeamMailIdentityDoc> | undefined) ??
    conn.model<TeamMailIdentityDoc>('TeamMailIdentity', teamMailIdentitySchema),
  inboundMailCounters: inboundMailCounterModel(conn),
});

/**
 * One fixed window's count of inbound mails, for one sender or for a whole partition
 * (docs/adr/0063): `_id` is `<team>:<mode>:<kind>:<subject>:<window start>`; a row expires an hour after its window.
 * Kept in ticketing's database, so every ticketing replica counts against the same rows.
 */
export interface InboundMailCounterDoc {
  _id: string;
  teamId: string;
  mode: Partition;
  n: number;
  expiresAt: Date;
}

const inboundMailCounterSchema = new mongoose.Schema<InboundMailCounterDoc>(
  {
    _id: { type: String, required: true },
    n: { type: Number, required: true },
    expiresAt: { type: Date, required: true },
  },
  { collection: 'inbound_mail_counters', versionKey: false, strict: 'throw' },
);
inboundMailCounterSchema.plugin(tenancyPlugin);
inboundMailCounterSchema.index({ expiresAt: 1 }, { expireAfterSeconds: 0 });

export const inboundMailCounterModel = (conn: mongoose.Connection) =>
  (conn.models.InboundMailCounter as mongoose.Model<InboundMailCounterDoc> | undefined) ?? conn.model<InboundMailCounterDoc>('InboundMailCounter', inboundMailCounterSchema);
