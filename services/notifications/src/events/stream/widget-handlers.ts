import { WIDGET_INTERNAL, WIDGET_STREAM, type WidgetMessage } from '@helpdesk/contracts';
import { ApiError, handlersFor, internalClient } from '@helpdesk/kit';
import { streamLog, type StreamSettings } from './serve';
import type { EventLog, LogEntry } from './log';

/** The parts of a `ticket.message_added` frame the conversation stream reads. */
interface MessageAdded {
  data: { ticket: { id: string }; message: WidgetMessage & { isInternal: boolean; ticketId: string } };
}

/**
 * `/teams/{teamId}/widget/conversations/{conversationId}/stream` (docs/adr/0040): the chat widget's
 * live view of ONE conversation. The conversation token is checked by the ticketing service (which
 * owns conversations) when the stream opens; the stream then reads the same log as the team's event
 * stream and sends only this ticket's public messages, as the visitor sees them (no internal note,
 * no other ticket, no other field).
 */
export function widgetStreamHandlers(log: EventLog, settings: StreamSettings, ticketingUrl: string | undefined) {
  const ticketing = ticketingUrl ? internalClient(WIDGET_INTERNAL, ticketingUrl, { service: 'ticketing' }) : null;

  /** The visitor's message of an entry of this conversation, or null. */
  function messageOf(e: LogEntry, conversationId: string): WidgetMessage | null {
    if (e.type !== 'ticket.message_added' || !e.data.includes(conversationId)) return null;
    const { ticket, message } = (JSON.parse(e.data) as MessageAdded).data;
    if (ticket.id !== conversationId || message.isInternal) return null;
    return { id: message.id, sender: message.sender, senderName: message.senderName, content: message.content, createdAt: message.createdAt };
  }

  return handlersFor(WIDGET_STREAM)({
    streamWidgetConversation: async ({ ctx, params, query, req, res, token }) => {
      if (!ticketing) throw new ApiError('service_unavailable', 'Conversation streams are not configured (TICKETING_URL).');
      const verified = await ticketing.forRequest(token, ctx.requestId).call('verifyWidgetConversation', {
        params: { conversationId: params.conversationId },
        query: { conversationToken: query.conversationToken },
      });
      if (!verified) throw new ApiError('resource_not_found', 'No conversation with this id opens with this conversation token.', 'conversationToken');
      const header = req.headers['last-event-id'];
      const lastId = typeof header === 'string' && /^\d{1,20}-\d{1,20}$/.test(header) ? header : (query.lastEventId ?? null);
      await streamLog(log, settings, ctx, lastId, res, {
        frame: (e) => {
          const message = messageOf(e, params.conversationId);
          return message ? `id: ${e.id}\nevent: message\ndata: ${JSON.stringify(message)}\n\n` : null;
        },
      });
    },
  });
}
