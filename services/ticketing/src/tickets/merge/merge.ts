import type mongoose from 'mongoose';
import type { MergeTicketsInput, TicketView } from '@helpdesk/contracts';
import { conflict, eventScopeOf, newId, notFound, parameterInvalid, scoped, withOutbox, type RequestContext, type Unscoped } from '@helpdesk/kit';
import type { BusinessHoursRules } from '../../business-hours/rules';
import type { Clock } from '../../clock';
import type { TicketingModels } from '../../collections';
import { stopClocks } from '../../sla/state';
import { CHRONOLOGICAL, type MessageDoc } from '../messages/model';
import { ticketSearchTokens, type TicketDoc } from '../model';
import { findTicketOr404 } from '../find';
import { ticketSnapshot, ticketView } from '../view';

export interface MergeTicketsDeps {
  conn: mongoose.Connection;
  models: TicketingModels;
  clock: Clock;
  businessHours: Pick<BusinessHoursRules, 'calendarOf'>;
}

const mergedAlready = (t: TicketDoc) => conflict(`Ticket ${t._id} was merged into ${t.mergedInto ?? 'another ticket'} and cannot be merged again.`);

/** `POST /tickets/{id}/merge` (docs/adr/0027): everything in one transaction, or nothing. */
export async function mergeTickets(deps: MergeTicketsDeps, ctx: RequestContext, targetId: string, input: MergeTicketsInput): Promise<TicketView> {
  const { conn, models, clock, businessHours } = deps;
  const sourceIds = input.sourceTicketIds;
  if (sourceIds.includes(targetId)) throw parameterInvalid('sourceTicketIds', `Invalid sourceTicketIds: the target ${targetId} cannot be merged into itself.`);
  const db = scoped(models, ctx);
  const { target, thread } = await withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
    const cur = await findTicketOr404(deps, ctx, targetId, session, true);
    if (cur.status === 'merged') throw mergedAlready(cur);
    const sources = await db.tickets.find({ _id: { $in: sourceIds } }).session(session).lean<TicketDoc[]>();
    const byId = new Map(sources.map((t) => [t._id, t]));
    const missing = sourceIds.find((id) => !byId.has(id));
    if (missing) throw notFound('ticket', missing);
    const merged = sources.find((t) => t.status === 'merged');
    if (merged) throw mergedAlready(merged);

    const now = clock.now();
    // Copies keep their time, so the target's thread (sorted by time) interleaves them in order.
    const copied = await db.messages.find({ ticketId: { $in: sourceIds } }).sort(CHRONOLOGICAL).session(session).lean<MessageDoc[]>();
    const copies: Unscoped<MessageDoc>[] = copied.map((m, i) => ({
      _id: newId('message'),
      ticketId: targetId,
      content: m.content,
      sender: m.sender,
      senderName: m.senderName,
      isInternal: m.isInternal,
      createdAt: m.createdAt,
      seq: cur.messageCount + i + 1,
    }));
    if (copies.length) await db.messages.insertMany(copies, { session, lean: true });

    const tags = [...new Set([...(cur.tags ?? []), ...sourceIds.flatMap((id) => byId.get(id)!.tags ?? [])])];
    const set: Partial<TicketDoc> = {
      tags,
      messageCount: cur.messageCount + copies.length,
      searchText: [cur.searchText ?? '', ...copies.map((m) => m.content.toLowerCase())].join('\n'),
      updatedAt: now,
    };
    Object.assign(set, ticketSearchTokens({ title: cur.title, searchText: set.searchText! }));
    const written = await db.tickets.updateOne({ _id: targetId, rev: cur.rev ?? 0 }, { $set: set, $inc: { rev: 1 } }, { session });
    if (written.matchedCount !== 1) throw conflict(`Ticket ${targetId} changed during the merge; retry.`);
    const next: TicketDoc = { ...cur, ...set, rev: (cur.rev ?? 0) + 1 };

    const team = sources.some((t) => t.sla) ? await businessHours.calendarOf(ctx.teamId) : null;
    for (const id of sourceIds) {
      const src = byId.get(id)!;
      // A merged ticket's SLA clocks stop where they were: nothing can breach any more.
      const sla = src.sla ? stopClocks(src.sla, now, team) : null;
      const change = { status: 'merged' as const, mergedInto: targetId, updatedAt: now, sla, slaNextDueAt: null };
      await db.tickets.updateOne({ _id: id }, { $set: change, $inc: { rev: 1 } }, { session });
      const after = { ...src, ...change, rev: (src.rev ?? 0) + 1 };
      emit({ type: 'ticket.updated', data: { ticket: ticketSnapshot(after), changes: ['status', 'mergedInto'], previous: { status: src.status, mergedInto: null } } });
    }
    const previous = { tags: cur.tags ?? [], messageCount: cur.messageCount };
    const changes = Object.keys(previous).filter((k) => JSON.stringify(previous[k as keyof typeof previous]) !== JSON.stringify(set[k as keyof typeof previous]));
    const ticket = ticketSnapshot(next);
    if (changes.length) emit({ type: 'ticket.updated', data: { ticket, changes, previous: Object.fromEntries(changes.map((k) => [k, previous[k as keyof typeof previous]])) } });
    emit({ type: 'ticket.merged', data: { ticket, sourceTicketIds: sourceIds } });
    const msgs = await db.messages.find({ ticketId: targetId }).sort(CHRONOLOGICAL).session(session).lean<MessageDoc[]>();
    return { target: next, thread: msgs };
  });
  return ticketView(target, { messages: thread });
}
