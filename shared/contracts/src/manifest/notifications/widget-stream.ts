import { defineOperations } from '../operation';
import {
  WIDGET_RULES_DOC,
  WIDGET_TOKEN_RULE_DOC,
  widgetConversationParams,
  widgetMessageSchema,
  widgetOperation,
  widgetStreamQuery,
} from '../ticketing/widget';

/** The widget's conversation stream, served by the notifications service (docs/adr/0040). */

export const WIDGET_STREAM = defineOperations({
  streamWidgetConversation: {
    ...widgetOperation,
    service: 'notifications',
    method: 'GET',
    path: '/teams/{teamId}/widget/conversations/{conversationId}/stream',
    summary: 'The conversation\'s new public messages, live (server-sent events)',
    description:
      'A `text/event-stream` of this conversation only: a frame `id: <ms>-<seq>` / `event: message` / `data: <WidgetMessage JSON>` ' +
      'for every public message added to its ticket (internal notes never); first frame `retry: 3000`, a `: heartbeat` comment ' +
      'every 15 s; `Last-Event-ID` (header, or `lastEventId`) replays what came after that id. The widget reads it with `fetch` ' +
      '(it sends the publishable key in `Authorization`). Counted once against the rate limits.' +
      WIDGET_TOKEN_RULE_DOC +
      ' ' +
      WIDGET_RULES_DOC,
    params: widgetConversationParams,
    query: widgetStreamQuery,
    success: { status: 200, data: widgetMessageSchema, shape: 'envelope' },
    errors: ['parameter_missing', 'parameter_invalid', 'resource_not_found'],
    stream: true,
  },
});
