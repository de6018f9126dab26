import { ApiError, scoped, type RequestContext } from '@helpdesk/kit';
import type { TicketingModels } from '../collections';
import { openConversation } from './conversation';
import type { WidgetSignUps } from './sign-ups';

/** The code mailed to a pending customer: the customers service checks it and makes them active. */
export async function confirmWidgetEmail(
  deps: { models: TicketingModels; widgetSignUps: WidgetSignUps },
  ctx: RequestContext,
  conversationId: string,
  token: string,
  code: string,
  jwt: string,
) {
  const c = await openConversation(deps, ctx, conversationId, token);
  if (!c.awaitingEmailConfirmation) throw new ApiError('parameter_invalid', 'This conversation has no email waiting for a confirmation code.', 'code');
  const confirmed = await deps.widgetSignUps.forRequest(jwt, ctx.requestId).call('confirmWidgetCustomer', { body: { customerId: c.customerId, code } });
  if (!confirmed) throw new ApiError('service_unavailable', 'The customers service did not answer. Please retry later.');
  if (!confirmed.confirmed) throw new ApiError('parameter_invalid', 'This confirmation code is wrong or has expired.', 'code');
  // Every conversation of this customer stops asking.
  await scoped(deps.models, ctx).widgetConversations.updateMany({ customerId: c.customerId }, { $set: { awaitingEmailConfirmation: false } });
  return { object: 'widget_confirmation' as const, confirmed: true as const, customer: { name: c.visitorName, email: c.visitorEmail } };
}
