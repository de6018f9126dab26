import type mongoose from 'mongoose';
import type { AddMessageInput, MessageSnapshot, Page } from '@helpdesk/contracts';
import {
  eventScopeOf,
  findPage,
  newId,
  notFound,
  scoped,
  withOutbox,
  type RequestContext,
  type Unscoped,
} from '@helpdesk/kit';
import type { TicketingModels } from '../../models';
import type { TicketDoc } from '../model';
import { resolveInternal, type TicketRules } from '../rules';
import { ticketSnapshot } from '../view';
import { CHRONOLOGICAL, type MessageDoc } from './model';
import { messageView } from './view';

export interface MessageRulesDeps {
  conn: mongoose.Connection;
  models: TicketingModels;
  tickets: TicketRules;
}

/** The rules of a ticket's messages (docs/adr/0004). */
export function messageRules({ conn, models, tickets }: MessageRulesDeps) {
  return {
    /** The thread, oldest first; 404 when the ticket is not in the caller's team and partition. */
    async list(ctx: RequestContext, ticketId: string, q: { page: number; pageSize: number }): Promise<Page<MessageSnapshot>> {
      await tickets.findOr404(ctx, ticketId);
      const db = scoped(models, ctx);
      const { rows, pagination } = await findPage(db.messages, { ticketId }, q, { sort: CHRONOLOGICAL });
      return { data: rows.map(messageView), pagination };
    },

    /**
     * Adds a message; the ticket's messageCount, updatedAt and search text change in the same
     * transaction, and `ticket.message_added` carries both snapshots. The status never changes here.
     */
    async add(ctx: RequestContext, ticketId: string, input: AddMessageInput): Promise<MessageSnapshot> {
      const isInternal = resolveInternal(input);
      const db = scoped(models, ctx);
      const msg = await withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
        const now = new Date();
        // Write the ticket first: the write holds it for this transaction, so concurrent messages
        // each get their own count and position, and the search text is extended from the latest one.
        const next = await db.tickets
          .findOneAndUpdate({ _id: ticketId }, { $inc: { messageCount: 1, rev: 1 }, $set: { updatedAt: now } }, { session, returnDocument: 'after' })
          .lean<TicketDoc>();
        if (!next) throw notFound('ticket', ticketId);
        next.searchText = `${next.searchText ?? ''}\n${input.content.toLowerCase()}`;
        await db.tickets.updateOne({ _id: ticketId }, { $set: { searchText: next.searchText } }, { session });
        const m: Unscoped<MessageDoc> = {
          _id: newId('message'),
          ticketId,
          content: input.content,
          sender: input.sender ?? 'agent',
          senderName: input.senderName ?? null,
          isInternal,
          createdAt: now,
          seq: next.messageCount,
        };
        await db.messages.insertMany([m], { session, lean: true }); // built above: no hydration (docs/adr/0019)
        emit({ type: 'ticket.message_added', data: { ticket: ticketSnapshot(next), message: messageView(m) } });
        return m;
      });
      return messageView(msg);
    },
  };
}

export type MessageRules = ReturnType<typeof messageRules>;
