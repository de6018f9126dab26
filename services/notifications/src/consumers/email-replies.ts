import type mongoose from 'mongoose';
import { INBOUND_EMAIL_INTERNAL } from '@helpdesk/contracts';
import { consumeOnce, internalClient, newId, on, type InternalTokens, type Subscription } from '@helpdesk/kit';
import type { MailRules } from '../mail/rules';

/** Replies are de-duplicated under their own consumer name: `ticket.message_added` also makes notifications. */
const CONSUMER = 'notifications.email-replies';

/**
 * Email out (docs/adr/0041): an agent's public reply on a ticket opened by email is mailed to the
 * ticket's customer, once per event. Ticketing answers the recipient, the team's support address and
 * the thread's Message-IDs when the reply is queued (404: not an email ticket, or no customer email:
 * nothing to send). Internal notes and customers' own messages are never mailed.
 */
export function emailReplyConsumers(conn: mongoose.Connection, mail: MailRules, ticketingUrl: string, tokens: InternalTokens): Subscription[] {
  const ticketing = internalClient(INBOUND_EMAIL_INTERNAL, ticketingUrl, { service: 'ticketing' });
  return [
    on('ticket.message_added', async (e) => {
      const { ticket, message } = e.data;
      if (ticket.channel !== 'email' || message.sender !== 'agent' || message.isInternal) return;
      const requestId = e.requestId ?? newId('request');
      const token = tokens.mint({ teamId: e.teamId, mode: e.mode, keyId: 'notifications', keyType: 'internal', memberId: null, permissions: [] }, requestId);
      const thread = await ticketing.forRequest(token, requestId).call('getEmailReplyThread', { params: { ticketId: ticket.id }, query: { messageId: message.id } });
      if (!thread) return;
      await consumeOnce(conn, CONSUMER, e, (session) =>
        mail.queueReply(e, { ticketId: ticket.id, messageId: message.id, content: message.content, senderName: message.senderName, thread }, session),
      );
    }),
  ];
}
