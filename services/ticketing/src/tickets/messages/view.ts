import type { MessageView } from '@helpdesk/contracts';
import type { Unscoped } from '@helpdesk/kit';
import type { MessageDoc } from './model';

/** A message: the public JSON and the event snapshot are the same. */
export function messageView(m: Unscoped<MessageDoc>): MessageView {
  return {
    id: m._id,
    ticketId: m.ticketId,
    content: m.content,
    sender: m.sender,
    senderName: m.senderName ?? null,
    authorId: m.authorId ?? null,
    isInternal: m.isInternal,
    createdAt: new Date(m.createdAt).toISOString(),
  };
}
