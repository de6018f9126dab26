import { shortenTitle, type StartWidgetConversationInput } from '@helpdesk/contracts';
import { ApiError, scoped, type RequestContext } from '@helpdesk/kit';
import type { CustomerClient } from '../customer-refs/rules';
import type { TicketingModels } from '../collections';
import type { TicketsPort } from '../tickets/port';
import { hashOf, newConversationToken } from './conversation';
import type { WidgetSignUps } from './sign-ups';
import { conversationView } from './view';

export interface StartConversationDeps {
  models: TicketingModels;
  tickets: Pick<TicketsPort, 'create'>;
  customers: CustomerClient;
  widgetSignUps: WidgetSignUps;
}

/**
 * A visitor writes for the first time: the customer (found or signed up `pending`), then the ticket
 * (channel `widget`, the first customer message) and the conversation in one transaction.
 */
export async function startConversation(deps: StartConversationDeps, ctx: RequestContext, input: StartWidgetConversationInput, jwt: string) {
  const signUp = await deps.widgetSignUps.forRequest(jwt, ctx.requestId).call('signUpWidgetCustomer', { body: { name: input.name, email: input.email } });
  if (!signUp) throw new ApiError('service_unavailable', 'The customers service did not answer. Please retry later.');
  const token = newConversationToken();
  const subject = input.subject?.trim() ? input.subject : input.message.trim().split('\n')[0];
  const conversation = {
    tokenHash: hashOf(token),
    customerId: signUp.customer.id,
    visitorName: input.name,
    visitorEmail: input.email,
    awaitingEmailConfirmation: signUp.confirmationSent,
  };
  const db = scoped(deps.models, ctx);
  const ticket = await deps.tickets.create(
    ctx,
    { title: shortenTitle(subject), messages: [{ sender: 'customer', content: input.message, senderName: input.name }] },
    deps.customers.forRequest(jwt, ctx.requestId),
    {
      channel: 'widget',
      customer: signUp.customer,
      also: async (session, ticketId) => {
        await db.widgetConversations.insertMany([{ _id: ticketId, ...conversation, createdAt: new Date() }], { session });
      },
    },
  );
  return {
    ...conversationView({ _id: ticket.id, ...conversation }, ticket, ticket.messages ?? []),
    conversationToken: token,
  };
}
