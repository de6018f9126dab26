import type mongoose from 'mongoose';
import type { AddMessageInput, MessageSnapshot, Page } from '@helpdesk/contracts';
import { eventScopeOf, findPage, scoped, withOutbox, type RequestContext } from '@helpdesk/kit';
import type { TicketingModels } from '../../models';
import { resolveInternal, type TicketRules } from '../rules';
import { CHRONOLOGICAL } from './model';
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

    /** Adds a message in its own transaction (tickets.addMessageIn: counts, search text, SLA first response, events). */
    async add(ctx: RequestContext, ticketId: string, input: AddMessageInput): Promise<MessageSnapshot> {
      const isInternal = resolveInternal(input);
      const message = { content: input.content, sender: input.sender ?? 'agent', senderName: input.senderName ?? null, isInternal };
      const added = await withOutbox(conn, eventScopeOf(ctx), (session, emit) => tickets.addMessageIn(session, emit, ctx, ticketId, message));
      return added.message;
    },
  };
}

export type MessageRules = ReturnType<typeof messageRules>;
