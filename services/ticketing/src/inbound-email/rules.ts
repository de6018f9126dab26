import { createHash, timingSafeEqual } from 'node:crypto';
import type mongoose from 'mongoose';
import {
  createTicketBody,
  CUSTOMERS_BULK_INTERNAL,
  CUSTOMERS_INTERNAL,
  INBOUND_SECRET_GRACE_MS,
  INBOUND_SECRET_RE,
  type CustomerSnapshot,
  type EmailReplyThread,
  type InboundEmailView,
} from '@helpdesk/contracts';
import {
  eventScopeOf,
  internalClient,
  newId,
  notFound,
  parseInput,
  randomBase62,
  scoped,
  withOutbox,
  type InternalTokens,
  type Logger,
  type SlowClientLimits,
  type RequestContext,
  type Scope,
  type TypedEvent,
} from '@helpdesk/kit';
import type { TicketingModels } from '../models';
import { CHRONOLOGICAL, type MessageDoc } from '../tickets/messages/model';
import type { TicketDoc } from '../tickets/model';
import type { TicketsPort } from '../tickets/port';
import { bareMessageId, outgoingMessageId, replyAddress, teamAddress, ticketOfOurMessageId } from './addresses';
import type { EmailMailDoc, InboundSecretDoc, TeamMailIdentityDoc } from './model';
import { DEFAULT_INBOUND_MAIL_LIMITS, inboundMailLimiter, refusalMessage, type InboundMailLimits, type InboundMailRefusal } from './limits';
import type { InboundListening } from './listeners';
import type { InboundMail } from './parse';

/** Inbound email's settings (docs/adr/0041): the listeners are started by ./listeners.ts. */
export interface InboundEmailConfig {
  /** The domain of the partitions' addresses and of our Message-IDs (INBOUND_EMAIL_DOMAIN, default `helpdesk.local`). */
  domain: string;
  /** The largest mail taken, in bytes (SMTP SIZE and the webhook's body limit). */
  maxBytes: number;
  /** The SMTP listener; null: off. `tls`: PEM key and certificate for STARTTLS (none: no STARTTLS). */
  smtp: { host: string; port: number; tls?: { key: string | Buffer; cert: string | Buffer } } | null;
  /** The webhook listener for providers' raw MIME; null: off. */
  http: { host: string; port: number } | null;
  /** Mails an hour per sender and per partition (docs/adr/0063); default DEFAULT_INBOUND_MAIL_LIMITS. */
  limits?: InboundMailLimits;
  /** Slow clients: the listeners' time for a request's headers (SMTP: each command), and the body's minimum rate; default kit's SLOW_CLIENT_LIMITS. */
  slowClients?: SlowClientLimits;
}

/** A mail over its sender's or its partition's hourly limit: nothing was stored; the sender retries later. */
export class MailLimited extends Error {
  constructor(readonly refusal: InboundMailRefusal, sender: string) {
    super(refusalMessage(refusal, sender));
  }
}

export const DEFAULT_INBOUND_EMAIL: InboundEmailConfig = { domain: 'helpdesk.local', maxBytes: 10 * 1024 * 1024, smtp: null, http: null };

/** What happened to one inbound mail. */
export interface IngestOutcome {
  outcome: 'created' | 'continued' | 'duplicate' | 'ignored';
  ticketId: string | null;
  messageId: string | null;
  reason: string | null;
}

/** One mail's route: the partition, and the ticket its reply address names. */
export type MailRoute = Scope & { ticketId: string | null };

const REFERENCES_MAX = 20;
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const sameHash = (a: string, b: string) => timingSafeEqual(Buffer.from(a, 'hex'), Buffer.from(b, 'hex'));
const isDuplicateKey = (err: unknown) => (err as { code?: number }).code === 11000;

export interface InboundEmailDeps {
  conn: mongoose.Connection;
  models: TicketingModels;
  tickets: Pick<TicketsPort, 'create' | 'addMessageIn'>;
  customersUrl: string;
  tokens?: InternalTokens;
  logger: Logger;
  config: InboundEmailConfig;
}

/** Email in (tickets from mail), the webhook secret, and the threading of replies (docs/adr/0041). */
export function inboundEmailRules({ conn, models, tickets, customersUrl, tokens, logger, config }: InboundEmailDeps) {
  const { domain } = config;
  const limiter = inboundMailLimiter(models, config.limits ?? DEFAULT_INBOUND_MAIL_LIMITS);
  const customers = internalClient(CUSTOMERS_INTERNAL, customersUrl, { service: 'customers' });
  const requesters = internalClient(CUSTOMERS_BULK_INTERNAL, customersUrl, { service: 'customers' });

  /** The listener acts as an internal caller of the partition (events name the key `inbound-email`). */
  function contextOf(s: Scope): { ctx: RequestContext; token: string } {
    if (!tokens) throw new Error('inbound email needs the internal token secret');
    const ctx: RequestContext = {
      teamId: s.teamId,
      mode: s.mode,
      keyId: 'inbound-email',
      keyType: 'internal',
      memberId: null,
      permissions: [],
      requestId: newId('request'),
    };
    return { ctx, token: tokens.mint(ctx, ctx.requestId) };
  }

  /** The sender's customer: found by email or created (customer.created), through the customers service's find-or-create. */
  async function customerOf(ctx: RequestContext, token: string, mail: InboundMail): Promise<CustomerSnapshot | null> {
    const answer = await requesters.forRequest(token, ctx.requestId).call('ensureRequesters', { body: { requesters: [{ email: mail.fromAddress, name: mail.fromName }] } });
    const found = answer?.customers[0];
    if (found?.customer) return found.customer;
    // Created by a concurrent mail meanwhile (the create lost the race): it exists now.
    const again = await customers.forRequest(token, ctx.requestId).call('findCustomerByEmail', { query: { email: mail.fromAddress } });
    if (!again) logger.warn({ teamId: ctx.teamId, error: found?.error }, 'inbound mail: the sender could not be made a customer; the ticket has none');
    return again;
  }

  /** The ticket a reply continues: its reply address, one of our Message-IDs, or a mail of the thread we recorded. */
  async function ticketOf(route: MailRoute, mail: InboundMail): Promise<string | null> {
    const db = scoped(models, route);
    const candidates: string[] = [];
    if (route.ticketId) candidates.push(route.ticketId);
    for (const id of [...mail.replyTo].reverse()) {
      const ours = ticketOfOurMessageId(id, domain);
      if (ours) candidates.push(ours);
    }
    if (mail.replyTo.length) {
      const known = await db.emailMails
        .find({ rfcMessageId: { $in: mail.replyTo.map(bareMessageId) } }, { ticketId: 1 })
        .sort({ createdAt: -1 })
        .lean<Pick<EmailMailDoc, 'ticketId'>[]>();
      candidates.push(...known.map((k) => k.ticketId));
    }
    for (const id of candidates) {
      const t = await db.tickets.findOne({ _id: id }, { status: 1, mergedInto: 1 }).lean<Pick<TicketDoc, '_id' | 'status' | 'mergedInto'>>();
      if (!t) continue;
      // A merged ticket's conversation goes on in the ticket it was merged into (docs/adr/0027).
      if (t.status === 'merged' && t.mergedInto) return (await db.tickets.exists({ _id: t.mergedInto })) ? t.mergedInto : null;
      return t._id;
    }
    return null;
  }

  const mailRecord = (mail: InboundMail, rfcMessageId: string, ticketId: string, messageId: string) => ({
    _id: newId('message').replace(/^msg_/, 'eml_'),
    rfcMessageId,
    messageIdHeader: mail.messageId ?? `<${rfcMessageId}>`,
    ticketId,
    messageId,
    from: mail.fromAddress,
    attachments: mail.attachments,
    createdAt: new Date(),
  });

  return {
    domain,
    config,
    /** Set when the listeners start (./listeners.ts): their ports once they listen. */
    listening: null as Promise<InboundListening> | null,

    /**
     * One mail into one partition: ignored when automatic (never a ticket, never a reply: no loop),
     * a duplicate when its Message-ID was taken before, else it continues the ticket it answers or
     * opens one (channel `email`, the sender's customer). The ticket or message and the mail's record
     * are written in one transaction: a failure leaves nothing behind.
     */
    async ingest(route: MailRoute, mail: InboundMail): Promise<IngestOutcome> {
      if (mail.automatic) return { outcome: 'ignored', ticketId: null, messageId: null, reason: mail.automatic };
      const db = scoped(models, route);
      // A mail without a Message-ID cannot be recognised again: it gets one of its own.
      const rfcMessageId = mail.messageId ? bareMessageId(mail.messageId) : `${newId('message')}@no-message-id.${domain}`;
      const duplicate = async (): Promise<IngestOutcome> => {
        const seen = await db.emailMails.findOne({ rfcMessageId }).lean<EmailMailDoc>();
        return { outcome: 'duplicate', ticketId: seen?.ticketId ?? null, messageId: seen?.messageId ?? null, reason: 'this Message-ID was received before' };
      };
      if (await db.emailMails.exists({ rfcMessageId })) return duplicate();
      const refused = await limiter.take(route, mail.fromAddress);
      if (refused) throw new MailLimited(refused, mail.fromAddress);
      const { ctx, token } = contextOf(route);
      try {
        const ticketId = await ticketOf(route, mail);
        if (ticketId) {
          const message = { content: mail.replyContent, sender: 'customer' as const, senderName: mail.fromName ?? mail.fromAddress, isInternal: false };
          const added = await withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
            const { message: m } = await tickets.addMessageIn(session, emit, ctx, ticketId, message);
            await db.emailMails.insertMany([mailRecord(mail, rfcMessageId, ticketId, m.id)], { session });
            return m;
          });
          return { outcome: 'continued', ticketId, messageId: added.id, reason: null };
        }
        const customer = await customerOf(ctx, token, mail);
        const input = parseInput(createTicketBody, {
          title: mail.title,
          messages: [{ sender: 'customer', content: mail.content, senderName: mail.fromName ?? mail.fromAddress }],
        });
        let messageId = '';
        const created = await tickets.create(ctx, input, customers.forRequest(token, ctx.requestId), {
          channel: 'email',
          customer,
          also: async (session, id) => {
            const first = await db.messages.findOne({ ticketId: id }, { _id: 1 }).session(session).lean<Pick<MessageDoc, '_id'>>();
            messageId = first!._id;
            await db.emailMails.insertMany([mailRecord(mail, rfcMessageId, id, messageId)], { session });
          },
        });
        return { outcome: 'created', ticketId: created.id, messageId, reason: null };
      } catch (err) {
        // The same mail delivered twice at once: the other delivery's transaction won.
        if (isDuplicateKey(err)) return duplicate();
        throw err;
      }
    },

    /** The partition's addresses and the webhook secret's state. */
    async settings(s: Scope): Promise<InboundEmailView> {
      const row = await scoped(models, s).inboundSecrets.findOne({ _id: `${s.teamId}:${s.mode}` }).lean<InboundSecretDoc>();
      const grace = row?.previousValidUntil && row.previousValidUntil > new Date() ? row.previousValidUntil.toISOString() : null;
      return {
        object: 'inbound_email',
        address: teamAddress(s, domain),
        replyAddressTemplate: replyAddress(s, '{ticketId}', domain),
        webhookPath: `/inbound-email/${s.teamId}/messages`,
        secret: row ? { hint: row.hint, createdAt: row.createdAt.toISOString(), previousValidUntil: grace } : null,
      };
    },

    /** A new secret, answered once (its hash is kept); the one it replaces works for the grace period. `inbound_email.secret_rotated`. */
    async rotateSecret(ctx: RequestContext) {
      const secrets = scoped(models, ctx).inboundSecrets;
      const _id = `${ctx.teamId}:${ctx.mode}`;
      const secret = `ies_${ctx.mode}_${randomBase62(40)}`;
      const now = new Date();
      const previousValidUntil = await withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
        const cur = await secrets.findOne({ _id }).session(session).lean<InboundSecretDoc>();
        const until = cur ? new Date(now.getTime() + INBOUND_SECRET_GRACE_MS) : null;
        const row = { hash: sha256(secret), hint: secret.slice(-4), createdAt: now, previousHash: cur?.hash ?? null, previousValidUntil: until };
        await secrets.updateOne({ _id }, { $set: row }, { upsert: true, session });
        emit({ type: 'inbound_email.secret_rotated', data: { hint: row.hint, createdAt: now.toISOString(), previousValidUntil: until?.toISOString() ?? null } });
        return until;
      });
      return { object: 'inbound_email_secret' as const, secret, hint: secret.slice(-4), createdAt: now.toISOString(), previousValidUntil: previousValidUntil?.toISOString() ?? null };
    },

    /** `inbound_email.secret_revoked`; 404 when there is none. */
    async revokeSecret(ctx: RequestContext): Promise<{ deleted: true }> {
      await withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
        const gone = await scoped(models, ctx).inboundSecrets.findOneAndDelete({ _id: `${ctx.teamId}:${ctx.mode}` }, { session }).lean<InboundSecretDoc>();
        if (!gone) throw notFound('inbound email secret');
        emit({ type: 'inbound_email.secret_revoked', data: { hint: gone.hint } });
      });
      return { deleted: true };
    },

    /** The partition a webhook secret opens for `teamId`, or null (wrong, revoked, another team's, past its grace). */
    async verifySecret(teamId: string, presented: string): Promise<Scope | null> {
      const m = INBOUND_SECRET_RE.exec(presented);
      if (!m) return null;
      const s: Scope = { teamId, mode: m[1] as Scope['mode'] };
      const row = await scoped(models, s).inboundSecrets.findOne({ _id: `${teamId}:${s.mode}` }).lean<InboundSecretDoc>();
      if (!row) return null;
      const hash = sha256(presented);
      if (sameHash(hash, row.hash)) return s;
      if (row.previousHash && row.previousValidUntil && row.previousValidUntil > new Date() && sameHash(hash, row.previousHash)) return s;
      return null;
    },

    /**
     * What an agent's reply mail needs: the customer, the team's support address, the ticket's reply
     * address, and the thread's Message-IDs (the customer's mails, and our earlier replies). 404 when
     * the ticket is not an email ticket or has no customer email.
     */
    async replyThread(s: Scope, ticketId: string, messageId: string): Promise<EmailReplyThread> {
      const db = scoped(models, s);
      const t = await db.tickets.findOne({ _id: ticketId }).lean<TicketDoc>();
      if (!t || t.channel !== 'email' || !t.customerEmail) throw notFound('email ticket', ticketId);
      const [mails, replies, identity] = await Promise.all([
        db.emailMails.find({ ticketId }).sort({ createdAt: 1 }).lean<EmailMailDoc[]>(),
        db.messages.find({ ticketId, sender: 'agent', isInternal: false }, { _id: 1, createdAt: 1, seq: 1 }).sort(CHRONOLOGICAL).lean<MessageDoc[]>(),
        db.teamMailIdentities.findOne({}).lean<TeamMailIdentityDoc>(),
      ]);
      const thisOne = replies.findIndex((r) => r._id === messageId);
      const earlier = thisOne === -1 ? replies : replies.slice(0, thisOne);
      const thread = [
        ...mails.map((m) => ({ at: m.createdAt.getTime(), id: m.messageIdHeader })),
        ...earlier.map((r) => ({ at: new Date(r.createdAt).getTime(), id: outgoingMessageId(r._id, ticketId, domain) })),
      ].sort((a, b) => a.at - b.at);
      const references = thread.length > REFERENCES_MAX ? [thread[0], ...thread.slice(-(REFERENCES_MAX - 1))] : thread;
      const lastCustomerMail = mails.at(-1);
      return {
        ticketId,
        to: t.customerEmail,
        toName: t.customerName ?? null,
        fromName: identity?.teamName ?? null,
        fromAddress: identity?.supportEmail ?? teamAddress(s, domain),
        replyTo: replyAddress(s, ticketId, domain),
        subject: /^re:/i.test(t.title) ? t.title : `Re: ${t.title}`,
        messageId: outgoingMessageId(messageId, ticketId, domain),
        inReplyTo: lastCustomerMail?.messageIdHeader ?? null,
        references: references.map((r) => r.id),
      };
    },

    /** `settings.updated`: the team's name and support address, the newest event winning. */
    async applySettings(e: TypedEvent<'settings.updated'>): Promise<void> {
      const eventAt = new Date(e.occurredAt);
      const set = { teamName: e.data.settings.teamName, supportEmail: e.data.settings.supportEmail, eventAt };
      try {
        await scoped(models, { teamId: e.teamId }).teamMailIdentities.updateOne({ eventAt: { $lt: eventAt } }, { $set: set }, { upsert: true });
      } catch (err) {
        // A newer row exists (the filter missed it, the upsert hit its _id): keep it.
        if (!isDuplicateKey(err)) throw err;
      }
    },
  };
}
export type InboundEmailRules = ReturnType<typeof inboundEmailRules>;
