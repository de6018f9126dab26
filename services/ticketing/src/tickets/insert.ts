import type mongoose from 'mongoose';
import type { TicketView } from '@helpdesk/contracts';
import { eventScopeOf, scoped, withOutbox, type RequestContext } from '@helpdesk/kit';
import type { CustomerRefs } from '../customer-refs/rules';
import type { TicketingModels } from '../collections';
import type { SlaClock, SlaLookups } from '../sla/clock';
import type { NewTicket } from './build';
import { messageView } from './messages/view';
import { buildSearchText, ticketSearchTokens, type TicketDoc } from './model';
import { ticketSnapshot, ticketView } from './view';

export interface InsertTicketsDeps {
  conn: mongoose.Connection;
  models: TicketingModels;
  customerRefs: Pick<CustomerRefs, 'link' | 'linkMany'>;
  sla: Pick<SlaClock, 'track'>;
}

/**
 * Writes built tickets in one transaction: customer links, SLA clocks, lean inserts, one
 * `ticket.created` each. Links, SLA rules and the calendar are read once for all of them (an
 * import chunk costs a few round trips, not a few per ticket). `also`: the caller's own writes in
 * the same transaction.
 */
export async function insertTickets(
  { conn, models, customerRefs, sla }: InsertTicketsDeps,
  ctx: RequestContext,
  built: readonly NewTicket[],
  also?: (session: mongoose.ClientSession, ticketIds: string[]) => Promise<void>,
): Promise<TicketView[]> {
  // The views come out of the transaction: a retry after a crash gets these back (docs/adr/0062).
  return withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
    const linked = built.length > 1 ? await customerRefs.linkMany(ctx, built.flatMap((b) => (b.customer ? [b.customer] : [])), session) : null;
    const lookups: SlaLookups = { rules: new Map() };
    for (const { doc, msgs, customer, now } of built) {
      if (customer) {
        // The newest name the projection or the customers service knows (a rename may have landed meanwhile).
        const ref = linked ? linked.get(customer.id)! : await customerRefs.link(ctx, customer, session);
        doc.customerName = ref.name;
        doc.customerEmail = ref.email;
      }
      doc.searchText = buildSearchText(doc.title, doc.customerName, msgs.map((m) => m.content));
      Object.assign(doc, ticketSearchTokens(doc));
      const clockStart = await sla.track(ctx, null, doc as TicketDoc, session, { now, lookups });
      doc.sla = clockStart.sla;
      doc.slaNextDueAt = clockStart.slaNextDueAt;
    }
    // Built field by field from the validated input: inserted lean, without mongoose
    // hydrating and validating the documents again (docs/adr/0019); the tickets straight
    // through the driver (docs/adr/0045).
    // One ticket without the caller's own writes (which may read them): nothing later in the unit touches
    // the new rows, they go out with the outbox rows in one command before the commit (docs/adr/0078).
    const db = scoped(models, ctx);
    const atCommit = !also && built.length === 1; // a unit's few rows; an import chunk writes them as before
    await db.tickets.leanInsert(built.map((b) => b.doc), { session, atCommit });
    const msgs = built.flatMap((b) => b.msgs);
    if (msgs.length) await db.messages.leanInsert(msgs, { session, atCommit });
    if (also) await also(session, built.map((b) => b.doc._id));
    for (const b of built) emit({ type: 'ticket.created', data: { ticket: ticketSnapshot(b.doc), messages: b.msgs.map(messageView) } });
    return built.map((b) => ticketView(b.doc, { messages: b.msgs }));
  });
}
