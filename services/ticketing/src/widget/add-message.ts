import type { AddWidgetMessageInput, WidgetMessage } from '@helpdesk/contracts';
import type { RequestContext } from '@helpdesk/kit';
import type { TicketingModels } from '../collections';
import type { TicketsPort } from '../tickets/port';
import { openConversation } from './conversation';
import { visitorMessage } from './view';

/** The visitor's next message: a public customer message of their ticket, signed with their name. */
export async function addVisitorMessage(
  deps: { models: TicketingModels; tickets: Pick<TicketsPort, 'addMessage'> },
  ctx: RequestContext,
  conversationId: string,
  token: string,
  input: AddWidgetMessageInput,
): Promise<WidgetMessage> {
  const c = await openConversation(deps, ctx, conversationId, token);
  const added = await deps.tickets.addMessage(ctx, conversationId, { content: input.content, sender: 'customer', senderName: c.visitorName, isInternal: false });
  return visitorMessage(added);
}
