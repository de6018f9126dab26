import type { FeatureFlag } from '@helpdesk/contracts';
import { updates } from '../lean';
import type { GameMemberRules } from '../members/rules';
import type { GameTicketDoc } from './model';
import { applySnapshot, isCustomerTicket } from './rules';
import type { Close, TicketEvent, PartitionWork } from './partition-work';

/** Tickets: one read, each snapshot applied in order, one write. Returns the closes that pay (before the members are checked). */
export async function applyTicketSnapshots({ scope, db, session }: PartitionWork, events: TicketEvent[]): Promise<Close[]> {
  const ids = [...new Set(events.map((e) => e.data.ticket.id))];
  const tickets = new Map((await db.tickets.leanFind<GameTicketDoc>({ _id: { $in: ids } }, { session })).map((t) => [t._id, t]));
  const ticketWrites = [];
  const closes: Close[] = [];
  for (const e of events) {
    const { doc, write } = applySnapshot(scope, tickets.get(e.data.ticket.id) ?? null, e.data.ticket);
    tickets.set(doc._id, doc);
    if (write) ticketWrites.push(write);
    // A close pays the member who closed it (the event's actor), once per ticket, ever; customer tickets only.
    if (e.type === 'ticket.closed' && e.actor.type === 'member' && e.actor.id && isCustomerTicket(doc)) closes.push({ event: e, ticket: doc, memberId: e.actor.id });
  }
  if (ticketWrites.length) await db.tickets.leanBulkWrite(updates(ticketWrites), { session });
  return closes;
}

/** The closes by members as the workspace last told (removed ones pay nothing), and the team's switches, read once. */
export async function payableCloses(
  members: Pick<GameMemberRules, 'find' | 'flags'>,
  { scope }: PartitionWork,
  closes: Close[],
): Promise<{ payable: Close[]; flags: Record<FeatureFlag, boolean> }> {
  const memberIds = [...new Set(closes.map((c) => c.memberId))];
  const [found, flags] = await Promise.all([Promise.all(memberIds.map((id) => members.find(scope.teamId, id))), members.flags(scope.teamId)]);
  const current = new Set(found.flatMap((m) => (m ? [m._id] : [])));
  return { payable: closes.filter((c) => current.has(c.memberId)), flags };
}

/**
 * Payout rows: one ordered bulk of upserts; a ticket paid already (before, or earlier in this batch)
 * matches its row and is not upserted. The unique index on the ticket per partition stays the guarantee.
 * Returns the closes paid now.
 */
export async function claimPayouts({ db, session, now }: PartitionWork, payable: Close[]): Promise<Close[]> {
  const res = await db.payouts.leanBulkWrite(
    updates(payable.map((c) => ({ filter: { ticketId: c.ticket._id }, update: { $setOnInsert: { memberId: c.memberId, paidAt: now } }, upsert: true }))),
    { session },
  );
  return payable.filter((_, i) => res.upsertedIds?.[i] !== undefined);
}
