import { WIDGET, WIDGET_CONFIRMATION, WIDGET_INTERNAL } from '@helpdesk/contracts';
import { handlersFor } from '@helpdesk/kit';
import type { TicketsPort } from '../tickets/port';
import { addVisitorMessage } from './add-message';
import { confirmWidgetEmail } from './confirm-email';
import { getConversation, verifyConversation } from './read';
import { startConversation, type StartConversationDeps } from './start';

type WidgetDeps = StartConversationDeps & { tickets: Pick<TicketsPort, 'create' | 'get' | 'addMessage'> };

/** `/teams/{teamId}/widget/conversations…` (docs/adr/0040), and the stream's check of a conversation token. */
export const widgetHandlers = (deps: WidgetDeps) => ({
  ...handlersFor(WIDGET)({
    startWidgetConversation: ({ ctx, body, token }) => startConversation(deps, ctx, body, token),
    getWidgetConversation: ({ ctx, params, query }) => getConversation(deps, ctx, params.conversationId, query.conversationToken),
    addWidgetMessage: ({ ctx, params, query, body }) => addVisitorMessage(deps, ctx, params.conversationId, query.conversationToken, body),
  }),
  ...handlersFor(WIDGET_CONFIRMATION)({
    confirmWidgetEmail: ({ ctx, params, query, body, token }) => confirmWidgetEmail(deps, ctx, params.conversationId, query.conversationToken, body.code, token),
  }),
  ...handlersFor(WIDGET_INTERNAL)({
    verifyWidgetConversation: ({ ctx, params, query }) => verifyConversation(deps, ctx, params.conversationId, query.conversationToken),
  }),
});
