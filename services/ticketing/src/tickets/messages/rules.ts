import type mongoose from 'mongoose';
import type { AddMessageInput, EventData, MessageView, Page } from '@helpdesk/contracts';
import { eventScopeOf, findPage, scoped, withOutbox, type Emit, type EventInput, type EventScope, type RequestContext } from '@helpdesk/kit';
import type { TicketingModels } from '../../models';
import type { TicketsPort } from '../port';
import { resolveInternal } from './internal';
import { CHRONOLOGICAL } from './model';
import { messageView } from './view';

export interface MessageRulesDeps {
  conn: mongoose.Connection;
  models: TicketingModels;
  tickets: Pick<TicketsPort, 'findOr404' | 'addMessageIn'>;
}

/** The rules of a ticket's messages (docs/adr/0004). */
type MessageAdded = EventData<'ticket.message_added'>;

export function messageRules({ conn, models, tickets }: MessageRulesDeps) {
  /** The member's name as ticketing knows it from `member.*` events (null while it does not yet). */
  const memberName = async (ctx: RequestContext, memberId: string): Promise<string | null> =>
    (await scoped(models, ctx).memberRefs.findOne({ _id: memberId }, { name: 1 }).lean<{ name: string }>())?.name ?? null;

  return {
    /** The thread, oldest first; 404 when the ticket is not in the caller's team and partition. */
    async list(ctx: RequestContext, ticketId: string, q: { page: number; pageSize: number }): Promise<Page<MessageView>> {
      await tickets.findOr404(ctx, ticketId);
      const db = scoped(models, ctx);
      const { rows, pagination } = await findPage(db.messages, { ticketId }, q, { sort: CHRONOLOGICAL });
      return { data: rows.map(messageView), pagination };
    },

    /**
     * Adds a message in its own transaction (tickets.addMessageIn: counts, search text, SLA first
     * response, events). An agent message sent with a member's key has that member as its author
     * (`authorId`, in the stored message, its event and the answer), and their name as `senderName`
     * unless one was sent.
     */
    async add(ctx: RequestContext, ticketId: string, input: AddMessageInput): Promise<MessageView> {
      const isInternal = resolveInternal(input);
      const sender = input.sender ?? 'agent';
      const authorId = sender === 'agent' ? ctx.memberId : null;
      const senderName = input.senderName ?? (authorId ? await memberName(ctx, authorId) : null);
      const message = { content: input.content, sender, senderName, isInternal };
      const added = await withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
        if (!authorId) return { ...(await tickets.addMessageIn(session, emit, ctx, ticketId, message)), authorId: null };
        // The message's event carries its author too.
        const withAuthor = ((e: EventInput, scope?: EventScope) => {
          if (e.type !== 'ticket.message_added') return emit(e, scope);
          const data = e.data as MessageAdded;
          return emit({ type: 'ticket.message_added', data: { ...data, message: { ...data.message, authorId } } }, scope);
        }) as Emit;
        const out = await tickets.addMessageIn(session, withAuthor, ctx, ticketId, message);
        await scoped(models, ctx).messages.updateOne({ _id: out.message.id }, { $set: { authorId } }, { session });
        return { ...out, authorId };
      });
      return { ...added.message, authorId: added.authorId };
    },
  };
}

export type MessageRules = ReturnType<typeof messageRules>;
