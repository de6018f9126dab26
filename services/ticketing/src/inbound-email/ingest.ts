import type mongoose from 'mongoose';
import { createTicketBody, type CUSTOMERS_BULK_INTERNAL, type CustomerSnapshot } from '@helpdesk/contracts';
import { eventScopeOf, newId, parseInput, scoped, withOutbox, type InternalCalls, type InternalTokens, type Logger, type RequestContext, type Scope } from '@helpdesk/kit';
import type { CustomerClient } from '../customer-refs/rules';
import type { TicketingModels } from '../collections';
import type { MessageDoc } from '../tickets/messages/model';
import type { TicketDoc } from '../tickets/model';
import type { TicketsPort } from '../tickets/port';
import { bareMessageId, ticketOfOurMessageId } from './addresses';
import { isDuplicateKey } from './config';
import { refusalMessage, type InboundMailLimiter, type InboundMailRefusal } from './limits';
import type { EmailMailDoc } from './model';
import type { InboundMail } from './parse';

/** A mail over its sender's or its partition's hourly limit: nothing was stored; the sender retries later. */
export class MailLimited extends Error {
  constructor(readonly refusal: InboundMailRefusal, sender: string) {
    super(refusalMessage(refusal, sender));
  }
}

/** What happened to one inbound mail. */
export interface IngestOutcome {
  outcome: 'created' | 'continued' | 'duplicate' | 'ignored';
  ticketId: string | null;
  messageId: string | null;
  reason: string | null;
}

/** One mail's route: the partition, and the ticket its reply address names. */
export type MailRoute = Scope & { ticketId: string | null };

export interface IngestMailDeps {
  conn: mongoose.Connection;
  models: TicketingModels;
  tickets: Pick<TicketsPort, 'create' | 'addMessageIn'>;
  /** The customers service: its find-by-email, and its find-or-create (`ensureRequesters`). */
  customers: CustomerClient;
  requesters: { forRequest(token: string, requestId: string): InternalCalls<typeof CUSTOMERS_BULK_INTERNAL> };
  mailLimiter: Pick<InboundMailLimiter, 'take'>;
  /** Mints the token the listener calls the customers service with. */
  tokens?: InternalTokens;
  logger: Logger;
  /** The domain of our addresses and Message-IDs. */
  domain: string;
}

/** The listener acts as an internal caller of the partition (events name the key `inbound-email`). */
function contextOf(tokens: InternalTokens | undefined, s: Scope): { ctx: RequestContext; token: string } {
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
async function customerOf({ customers, requesters, logger }: IngestMailDeps, ctx: RequestContext, token: string, mail: InboundMail): Promise<CustomerSnapshot | null> {
  const answer = await requesters.forRequest(token, ctx.requestId).call('ensureRequesters', { body: { requesters: [{ email: mail.fromAddress, name: mail.fromName }] } });
  const found = answer?.customers[0];
  if (found?.customer) return found.customer;
  // Created by a concurrent mail meanwhile (the create lost the race): it exists now.
  const again = await customers.forRequest(token, ctx.requestId).call('findCustomerByEmail', { query: { email: mail.fromAddress } });
  if (!again) logger.warn({ teamId: ctx.teamId, error: found?.error }, 'inbound mail: the sender could not be made a customer; the ticket has none');
  return again;
}

/** The ticket a reply continues: its reply address, one of our Message-IDs, or a mail of the thread we recorded. */
async function ticketOf({ models, domain }: IngestMailDeps, route: MailRoute, mail: InboundMail): Promise<string | null> {
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

/** The mail as the customer's next message of the ticket it answers, with its record. */
async function continueTicket(deps: IngestMailDeps, ctx: RequestContext, ticketId: string, mail: InboundMail, rfcMessageId: string): Promise<IngestOutcome> {
  const message = { content: mail.replyContent, sender: 'customer' as const, senderName: mail.fromName ?? mail.fromAddress, isInternal: false };
  const added = await withOutbox(deps.conn, eventScopeOf(ctx), async (session, emit) => {
    const { message: m } = await deps.tickets.addMessageIn(session, emit, ctx, ticketId, message);
    await scoped(deps.models, ctx).emailMails.insertMany([mailRecord(mail, rfcMessageId, ticketId, m.id)], { session });
    return m;
  });
  return { outcome: 'continued', ticketId, messageId: added.id, reason: null };
}

/** A new ticket (channel `email`, the sender's customer) whose first message is the mail, with its record. */
async function openTicket(deps: IngestMailDeps, ctx: RequestContext, token: string, mail: InboundMail, rfcMessageId: string): Promise<IngestOutcome> {
  const db = scoped(deps.models, ctx);
  const customer = await customerOf(deps, ctx, token, mail);
  const input = parseInput(createTicketBody, {
    title: mail.title,
    messages: [{ sender: 'customer', content: mail.content, senderName: mail.fromName ?? mail.fromAddress }],
  });
  let messageId = '';
  const created = await deps.tickets.create(ctx, input, deps.customers.forRequest(token, ctx.requestId), {
    channel: 'email',
    customer,
    also: async (session, id) => {
      const first = await db.messages.findOne({ ticketId: id }, { _id: 1 }).session(session).lean<Pick<MessageDoc, '_id'>>();
      messageId = first!._id;
      await db.emailMails.insertMany([mailRecord(mail, rfcMessageId, id, messageId)], { session });
    },
  });
  return { outcome: 'created', ticketId: created.id, messageId, reason: null };
}

/**
 * One mail into one partition: ignored when automatic (never a ticket, never a reply: no loop),
 * a duplicate when its Message-ID was taken before, else it continues the ticket it answers or
 * opens one (channel `email`, the sender's customer). The ticket or message and the mail's record
 * are written in one transaction: a failure leaves nothing behind. Throws MailLimited over the limits.
 */
export async function ingestMail(deps: IngestMailDeps, route: MailRoute, mail: InboundMail): Promise<IngestOutcome> {
  if (mail.automatic) return { outcome: 'ignored', ticketId: null, messageId: null, reason: mail.automatic };
  const db = scoped(deps.models, route);
  // A mail without a Message-ID cannot be recognised again: it gets one of its own.
  const rfcMessageId = mail.messageId ? bareMessageId(mail.messageId) : `${newId('message')}@no-message-id.${deps.domain}`;
  const duplicate = async (): Promise<IngestOutcome> => {
    const seen = await db.emailMails.findOne({ rfcMessageId }).lean<EmailMailDoc>();
    return { outcome: 'duplicate', ticketId: seen?.ticketId ?? null, messageId: seen?.messageId ?? null, reason: 'this Message-ID was received before' };
  };
  if (await db.emailMails.exists({ rfcMessageId })) return duplicate();
  const refused = await deps.mailLimiter.take(route, mail.fromAddress);
  if (refused) throw new MailLimited(refused, mail.fromAddress);
  const { ctx, token } = contextOf(deps.tokens, route);
  try {
    const ticketId = await ticketOf(deps, route, mail);
    return ticketId ? await continueTicket(deps, ctx, ticketId, mail, rfcMessageId) : await openTicket(deps, ctx, token, mail, rfcMessageId);
  } catch (err) {
    // The same mail delivered twice at once: the other delivery's transaction won.
    if (isDuplicateKey(err)) return duplicate();
    throw err;
  }
}
