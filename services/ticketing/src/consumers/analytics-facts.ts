import { on, type Subscription } from '@helpdesk/kit';
import type { MessageSnapshot } from '@helpdesk/contracts';
import type { FactWriter } from '../analytics/batches';

/** A first response: a public reply by an agent or the AI (not a customer, a system message or a note). */
const isReply = (m: Pick<MessageSnapshot, 'sender' | 'isInternal'>) => (m.sender === 'agent' || m.sender === 'ai') && !m.isInternal;
const replyIn = (m: MessageSnapshot) => (isReply(m) ? { at: m.createdAt } : undefined);

/**
 * The ticket facts analytics counts (docs/adr/0030), kept from ticketing's own ticket events, applied
 * in micro-batches (`analytics.facts`: what arrives together is one bulk write).
 *
 * `ticket.closed` is not consumed: a close is a change of status, and ticketing emits it only beside
 * the `ticket.updated` of that change, from the same write, with the same snapshot (tickets/change.ts
 * `changeTicketIn`; both in one outbox transaction), so it could never change the fact that update sets.
 */
export const analyticsFactConsumers = ({ facts }: Pick<FactWriter, 'facts'>): Subscription[] => [
  // Messages given at creation are not responses: the clock starts with the ticket.
  on('ticket.created', (e) => facts.submit({ event: e, ticket: e.data.ticket })),
  on('ticket.updated', (e) => facts.submit({ event: e, ticket: e.data.ticket })),
  on('ticket.message_added', (e) => facts.submit({ event: e, ticket: e.data.ticket, reply: replyIn(e.data.message) })),
  on('ticket.deleted', (e) => facts.submit({ event: e, forget: e.data.ticketId })),
];
