import type { RequestContext } from '@helpdesk/kit';
import type { TicketingModels } from '../collections';
import type { TicketsPort } from '../tickets/port';
import { openConversation } from './conversation';
import { conversationView } from './view';

/** The conversation as its visitor sees it: their ticket and its public thread. */
export async function getConversation(deps: { models: TicketingModels; tickets: Pick<TicketsPort, 'get'> }, ctx: RequestContext, conversationId: string, token: string) {
  const c = await openConversation(deps, ctx, conversationId, token);
  const ticket = await deps.tickets.get(ctx, conversationId);
  return conversationView(c, ticket, ticket.messages ?? []);
}

/** For the conversation's stream (the notifications service asks): the token opens this conversation, or a 404. */
export async function verifyConversation(deps: { models: TicketingModels }, ctx: RequestContext, conversationId: string, token: string) {
  await openConversation(deps, ctx, conversationId, token);
  return { conversationId };
}
