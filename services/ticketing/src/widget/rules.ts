import { createHash, randomBytes } from 'node:crypto';
import { CUSTOMERS_WIDGET_INTERNAL, shortenTitle, type AddWidgetMessageInput, type StartWidgetConversationInput, type WidgetMessage } from '@helpdesk/contracts';
import { ApiError, internalClient, scoped, type RequestContext } from '@helpdesk/kit';
import type { TicketingModels } from '../models';
import type { MessageRules } from '../tickets/messages/rules';
import type { CustomerCalls } from '../customer-refs/rules';
import type { TicketsPort } from '../tickets/port';
import { conversationView, visitorMessage } from './view';

export interface WidgetRulesDeps {
  models: TicketingModels;
  tickets: Pick<TicketsPort, 'create' | 'get'>;
  messages: MessageRules;
  /** The customers service (CUSTOMERS_URL): finds the visitor by email or signs them up as `pending`. */
  customersUrl: string;
  customers: { forRequest(token: string, requestId: string): CustomerCalls };
}

const hashOf = (token: string) => createHash('sha256').update(token).digest('hex');
const newToken = () => `wct_${randomBytes(32).toString('base64url')}`;

/** Another visitor's token, or none of this team's: the same answer, which confirms nothing. */
const wrongToken = () =>
  new ApiError('resource_not_found', 'No conversation with this id opens with this conversation token.', 'conversationToken');

/** The widget's conversations (docs/adr/0040): a visitor's ticket, reached with its conversation token only. */
export function widgetRules({ models, tickets, messages, customersUrl, customers }: WidgetRulesDeps) {
  const signUps = internalClient(CUSTOMERS_WIDGET_INTERNAL, customersUrl, { service: 'customers' });

  async function open(ctx: RequestContext, conversationId: string, token: string) {
    const c = await scoped(models, ctx).widgetConversations.findOne({ _id: conversationId, tokenHash: hashOf(token) }).lean();
    if (!c) throw wrongToken();
    return c;
  }

  return {
    /**
     * A visitor writes for the first time: the customer (found or signed up `pending`), then the ticket
     * (channel `widget`, the first customer message) and the conversation in one transaction.
     */
    async start(ctx: RequestContext, input: StartWidgetConversationInput, jwt: string) {
      const signUp = await signUps.forRequest(jwt, ctx.requestId).call('signUpWidgetCustomer', { body: { name: input.name, email: input.email } });
      if (!signUp) throw new ApiError('service_unavailable', 'The customers service did not answer. Please retry later.');
      const token = newToken();
      const subject = input.subject?.trim() ? input.subject : input.message.trim().split('\n')[0];
      const conversation = {
        tokenHash: hashOf(token),
        customerId: signUp.customer.id,
        visitorName: input.name,
        visitorEmail: input.email,
        awaitingEmailConfirmation: signUp.confirmationSent,
      };
      const db = scoped(models, ctx);
      const ticket = await tickets.create(
        ctx,
        { title: shortenTitle(subject), messages: [{ sender: 'customer', content: input.message, senderName: input.name }] },
        customers.forRequest(jwt, ctx.requestId),
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
    },

    async get(ctx: RequestContext, conversationId: string, token: string) {
      const c = await open(ctx, conversationId, token);
      const ticket = await tickets.get(ctx, conversationId);
      return conversationView(c, ticket, ticket.messages ?? []);
    },

    async addMessage(ctx: RequestContext, conversationId: string, token: string, input: AddWidgetMessageInput): Promise<WidgetMessage> {
      const c = await open(ctx, conversationId, token);
      const added = await messages.add(ctx, conversationId, { content: input.content, sender: 'customer', senderName: c.visitorName, isInternal: false });
      return visitorMessage(added);
    },

    /** The code mailed to a pending customer: the customers service checks it and makes them active. */
    async confirmEmail(ctx: RequestContext, conversationId: string, token: string, code: string, jwt: string) {
      const c = await open(ctx, conversationId, token);
      if (!c.awaitingEmailConfirmation) throw new ApiError('parameter_invalid', 'This conversation has no email waiting for a confirmation code.', 'code');
      const confirmed = await signUps.forRequest(jwt, ctx.requestId).call('confirmWidgetCustomer', { body: { customerId: c.customerId, code } });
      if (!confirmed) throw new ApiError('service_unavailable', 'The customers service did not answer. Please retry later.');
      if (!confirmed.confirmed) throw new ApiError('parameter_invalid', 'This confirmation code is wrong or has expired.', 'code');
      // Every conversation of this customer stops asking.
      await scoped(models, ctx).widgetConversations.updateMany({ customerId: c.customerId }, { $set: { awaitingEmailConfirmation: false } });
      return { object: 'widget_confirmation' as const, confirmed: true as const, customer: { name: c.visitorName, email: c.visitorEmail } };
    },

    /** For the conversation's stream (the notifications service asks). */
    async verify(ctx: RequestContext, conversationId: string, token: string) {
      await open(ctx, conversationId, token);
      return { conversationId };
    },
  };
}
export type WidgetRules = ReturnType<typeof widgetRules>;
