import type { EmailReplyThread } from '@helpdesk/contracts';
import { notFound, scoped, type Scope } from '@helpdesk/kit';
import type { TicketingModels } from '../collections';
import { CHRONOLOGICAL, type MessageDoc } from '../tickets/messages/model';
import type { TicketDoc } from '../tickets/model';
import { outgoingMessageId, replyAddress, teamAddress } from './addresses';
import type { EmailMailDoc, TeamMailIdentityDoc } from './model';

const REFERENCES_MAX = 20;

/**
 * What an agent's reply mail needs: the customer, the team's support address, the ticket's reply
 * address, and the thread's Message-IDs (the customer's mails, and our earlier replies). 404 when
 * the ticket is not an email ticket or has no customer email.
 */
export async function replyThread({ models }: { models: TicketingModels }, domain: string, s: Scope, ticketId: string, messageId: string): Promise<EmailReplyThread> {
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
}
