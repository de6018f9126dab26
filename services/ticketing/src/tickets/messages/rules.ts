import { eventScopeOf, newId, notFound, pageOf, scopeOf, skipOf, type RequestContext } from '@helpdesk/kit';
import { withOutbox } from '../outbox';
import type { TicketDoc } from '../tickets/model';
import { messageView, resolveInternal, ticketSnapshot, type TicketingDeps } from '../tickets/service';
import { createTicketService } from '../tickets/service';
import { CHRONOLOGICAL, type MessageDoc } from './model';
import type { AddMessageInput } from './schema';

export function createMessageService(deps: TicketingDeps) {
  const { conn, tickets: Tickets, messages: Messages } = deps;
  const tickets = createTicketService(deps);

  return {
    /** The thread, oldest first; 404 when the ticket is not in the caller's team and partition. */
    async list(ctx: RequestContext, ticketId: string, q: { page: number; pageSize: number }) {
      await tickets.findOr404(ctx, ticketId);
      const filter = { ...scopeOf(ctx), ticketId };
      const [total, rows] = await Promise.all([
        Messages.countDocuments(filter),
        Messages.find(filter).sort(CHRONOLOGICAL).skip(skipOf(q.page, q.pageSize)).limit(q.pageSize).lean<MessageDoc[]>(),
      ]);
      return { items: rows.map(messageView), pagination: pageOf(q.page, q.pageSize, total) };
    },

    /**
     * Adds a message; the ticket's messageCount, updatedAt and search text change in the same
     * transaction, and `ticket.message_added` carries both snapshots. The status never changes here.
     */
    async add(ctx: RequestContext, ticketId: string, input: AddMessageInput) {
      const isInternal = resolveInternal(input);
      const msg = await withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
        const now = new Date();
        // Write the ticket first: the write holds it for this transaction, so concurrent messages
        // each get their own count and position, and the search text is extended from the latest one.
        const next = await Tickets.findOneAndUpdate(
          { _id: ticketId, ...scopeOf(ctx) },
          { $inc: { messageCount: 1, rev: 1 }, $set: { updatedAt: now } },
          { session, returnDocument: 'after' },
        ).lean<TicketDoc>();
        if (!next) throw notFound('ticket', ticketId);
        next.searchText = `${next.searchText ?? ''}\n${input.content.toLowerCase()}`;
        await Tickets.updateOne({ _id: ticketId, ...scopeOf(ctx) }, { $set: { searchText: next.searchText } }, { session });
        const m: MessageDoc = {
          _id: newId('message'),
          ...scopeOf(ctx),
          ticketId,
          content: input.content,
          sender: input.sender ?? 'agent',
          senderName: input.senderName ?? null,
          isInternal,
          createdAt: now,
          seq: next.messageCount,
        };
        await Messages.create([m], { session });
        emit({ type: 'ticket.message_added', data: { ticket: ticketSnapshot(next), message: messageView(m) } });
        return m;
      });
      return messageView(msg);
    },
  };
}

export type MessageService = ReturnType<typeof createMessageService>;
