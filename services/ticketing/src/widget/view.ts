import type { MessageSnapshot, WidgetConversation, WidgetMessage } from '@helpdesk/contracts';
import type { WidgetConversationDoc } from './model';

/**
 * What a visitor sees (docs/adr/0040): their conversation's title, status and public messages, field
 * by field. Never the ticket's notes, metadata, tags, assignee, custom fields or internal notes.
 */
export const visitorMessage = (m: MessageSnapshot): WidgetMessage => ({
  id: m.id,
  sender: m.sender,
  senderName: m.senderName,
  content: m.content,
  createdAt: m.createdAt,
});

export function conversationView(
  c: Pick<WidgetConversationDoc, '_id' | 'visitorName' | 'visitorEmail' | 'awaitingEmailConfirmation'>,
  t: { title: string; status: string; createdAt: string; updatedAt: string },
  messages: readonly MessageSnapshot[],
): WidgetConversation {
  return {
    object: 'widget_conversation',
    id: c._id,
    title: t.title,
    status: t.status,
    customer: { name: c.visitorName, email: c.visitorEmail },
    awaitingEmailConfirmation: c.awaitingEmailConfirmation,
    messages: messages.filter((m) => !m.isInternal).map(visitorMessage),
    createdAt: t.createdAt,
    updatedAt: t.updatedAt,
  };
}
