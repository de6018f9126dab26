import type mongoose from 'mongoose';
import type { AddMessageInput, MessageSnapshot, MessageView, Sender } from '@helpdesk/contracts';
import { eventScopeOf, newId, notFound, sameJson, scoped, withOutbox, type Emit, type RequestContext, type Scope, type Unscoped } from '@helpdesk/kit';
import type { Clock } from '../../clock';
import type { TicketingModels } from '../../collections';
import type { SlaClock } from '../../sla/clock';
import { mergedConflict } from '../conflicts';
import { ticketSearchTokens, type TicketDoc } from '../model';
import { ticketSnapshot } from '../view';
import { resolveInternal } from './internal';
import type { MessageDoc } from './model';
import { messageView } from './view';

/** A message added inside a caller's transaction (`sender` defaults to `system`). */
export interface MessageToAdd {
  content: string;
  isInternal: boolean;
  senderName: string | null;
  sender?: Exclude<Sender, 'ai'>;
  /** The member who wrote it (an agent message sent with a member's key), stored with it and in its event. */
  authorId?: string;
}

export interface AddMessageDeps {
  models: TicketingModels;
  sla: SlaClock;
  clock: Clock;
}

/**
 * Adds a message inside the caller's transaction: the ticket's messageCount, updatedAt and search
 * text change with it, `ticket.message_added` carries both snapshots, and a first public agent
 * reply meets the SLA response target. The status never changes here. 404 / 409 (merged).
 */
export async function addMessageIn(
  { models, sla, clock }: AddMessageDeps,
  session: mongoose.ClientSession,
  emit: Emit,
  scope: Scope,
  ticketId: string,
  input: MessageToAdd,
  opts: {
    /**
     * Nothing later in the caller's unit reads or writes this ticket or message: the ticket's second
     * write and the message go out with the unit's outbox rows in one command (docs/adr/0078).
     */
    lastInUnit?: boolean;
  } = {},
): Promise<{ message: MessageSnapshot; eventIds: string[] }> {
  const db = scoped(models, scope);
  const now = clock.now();
  // Write the ticket first: the write holds it for this transaction, so concurrent messages
  // each get their own count and position, and the search text is extended from the latest one.
  // Through the driver (docs/adr/0071): what is written here is stored as sent, nothing to cast.
  const next = await db.tickets.leanFindOneAndUpdate<TicketDoc>({ _id: ticketId }, { $inc: { messageCount: 1, rev: 1 }, $set: { updatedAt: now } }, { session });
  if (!next) throw notFound('ticket', ticketId);
  if (next.status === 'merged') throw mergedConflict(next);
  const sender = input.sender ?? 'system';
  next.searchText = `${next.searchText ?? ''}\n${input.content.toLowerCase()}`;
  const clockMove = await sla.track(scope, next, next, session, { now, agentReply: sender === 'agent' && !input.isInternal });
  const set: Partial<TicketDoc> = { searchText: next.searchText, ...ticketSearchTokens(next) };
  if (!sameJson(clockMove.sla, next.sla ?? null)) Object.assign(set, { sla: clockMove.sla, slaNextDueAt: clockMove.slaNextDueAt });
  Object.assign(next, set);
  if (opts.lastInUnit) await db.tickets.leanUpdateOneAtCommit({ _id: ticketId }, { $set: set }, { session });
  else await db.tickets.leanUpdateOne({ _id: ticketId }, { $set: set }, { session });
  const m: Unscoped<MessageDoc> = {
    _id: newId('message'),
    ticketId,
    content: input.content,
    sender,
    senderName: input.senderName,
    isInternal: input.isInternal,
    createdAt: now,
    seq: next.messageCount,
    // In the insert itself, not set after it: one command fewer (docs/adr/0071).
    ...(input.authorId ? { authorId: input.authorId } : {}),
  };
  await db.messages.leanInsert([m], { session, atCommit: opts.lastInUnit }); // built above: no hydration (docs/adr/0019)
  const eventIds = [emit({ type: 'ticket.message_added', data: { ticket: ticketSnapshot(next), message: messageView(m) } }).id];
  eventIds.push(...sla.emitBreaches(emit, next, clockMove.breached));
  return { message: messageView(m), eventIds };
}

/** The member's name as ticketing knows it from `member.*` events (null while it does not yet). */
const memberName = async (models: TicketingModels, ctx: RequestContext, memberId: string): Promise<string | null> =>
  (await scoped(models, ctx).memberRefs.leanFindOne<{ name: string }>({ _id: memberId }, { projection: { name: 1 } }))?.name ?? null;

/**
 * `POST /tickets/{id}/messages`: a message in its own transaction (addMessageIn: counts, search text,
 * SLA first response, events). An agent message sent with a member's key has that member as its
 * author (`authorId`, in the stored message, its event and the answer), and their name as
 * `senderName` unless one was sent.
 */
export async function addMessage(deps: AddMessageDeps & { conn: mongoose.Connection }, ctx: RequestContext, ticketId: string, input: AddMessageInput): Promise<MessageView> {
  const isInternal = resolveInternal(input);
  const sender = input.sender ?? 'agent';
  const authorId = sender === 'agent' ? ctx.memberId : null;
  const senderName = input.senderName ?? (authorId ? await memberName(deps.models, ctx, authorId) : null);
  const message: MessageToAdd = { content: input.content, sender, senderName, isInternal, ...(authorId ? { authorId } : {}) };
  const added = await withOutbox(deps.conn, eventScopeOf(ctx), (session, emit) => addMessageIn(deps, session, emit, ctx, ticketId, message, { lastInUnit: true }));
  return { ...added.message, authorId };
}
