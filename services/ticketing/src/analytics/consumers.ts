import { on, type Subscription } from '@helpdesk/kit';
import type { MessageSnapshot } from '@helpdesk/contracts';
import type { AnalyticsRules } from './rules';

/** A first response: a public reply by an agent or the AI (not a customer, a system message or a note). */
const isReply = (m: Pick<MessageSnapshot, 'sender' | 'isInternal'>) => (m.sender === 'agent' || m.sender === 'ai') && !m.isInternal;
const replyIn = (m: MessageSnapshot) => (isReply(m) ? { at: m.createdAt } : undefined);

/** The ticket facts analytics counts (docs/adr/0030), kept from ticketing's own ticket events. */
export const analyticsConsumers = (analytics: AnalyticsRules): Subscription[] => [
  // Messages given at creation are not responses: the clock starts with the ticket.
  on('ticket.created', (e) => analytics.applyTicket(e, e.data.ticket)),
  on('ticket.updated', (e) => analytics.applyTicket(e, e.data.ticket)),
  on('ticket.closed', (e) => analytics.applyTicket(e, e.data.ticket)),
  on('ticket.message_added', (e) => analytics.applyTicket(e, e.data.ticket, replyIn(e.data.message))),
  on('ticket.deleted', (e) => analytics.forgetTicket(e, e.data.ticketId)),
];
