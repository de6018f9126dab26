import { WIDGET, WIDGET_CONFIRMATION, WIDGET_INTERNAL } from '@helpdesk/contracts';
import { handlersFor } from '@helpdesk/kit';
import type { TicketingRules } from '../rules';

/** `/teams/{teamId}/widget/conversations…` (docs/adr/0040), and the stream's check of a conversation token. */
export const widgetHandlers = ({ widget }: TicketingRules) => ({
  ...handlersFor(WIDGET)({
    startWidgetConversation: ({ ctx, body, token }) => widget.start(ctx, body, token),
    getWidgetConversation: ({ ctx, params, query }) => widget.get(ctx, params.conversationId, query.conversationToken),
    addWidgetMessage: ({ ctx, params, query, body }) => widget.addMessage(ctx, params.conversationId, query.conversationToken, body),
  }),
  ...handlersFor(WIDGET_CONFIRMATION)({
    confirmWidgetEmail: ({ ctx, params, query, body, token }) => widget.confirmEmail(ctx, params.conversationId, query.conversationToken, body.code, token),
  }),
  ...handlersFor(WIDGET_INTERNAL)({
    verifyWidgetConversation: ({ ctx, params, query }) => widget.verify(ctx, params.conversationId, query.conversationToken),
  }),
});
