import type { ListTicketsQuery, Page, TicketView } from '@helpdesk/contracts';
import { escapeRegex, scoped, type LeanFilter, type RequestContext } from '@helpdesk/kit';
import type { TicketingModels } from '../collections';
import { customerOf, customersOf, expansions } from './expand';
import { VIEW_FIELDS } from './find';
import { CHRONOLOGICAL, type MessageDoc } from './messages/model';
import type { TicketDoc } from './model';
import { ticketView } from './view';

/** `GET /tickets`; `sort`: a saved view's order (docs/adr/0035), newest first otherwise. */
export async function listTickets(deps: { models: TicketingModels }, ctx: RequestContext, q: ListTicketsQuery, sort?: Record<string, 1 | -1>): Promise<Page<TicketView>> {
  const db = scoped(deps.models, ctx);
  const filter: LeanFilter = {};
  if (q.status) filter.status = q.status;
  if (q.priority) filter.priority = q.priority;
  if (q.customerId) filter.customerId = q.customerId;
  if (q.assignedTo) filter.assignedTo = q.assignedTo === 'none' ? null : q.assignedTo;
  const search = q.search?.trim();
  if (search) filter.searchText = { $regex: escapeRegex(search.toLowerCase()) };
  const expand = expansions(q);

  // Through the driver (docs/adr/0043): the filter's values are stored as sent, nothing to cast.
  const { rows, pagination } = await db.tickets.leanPage<TicketDoc>(filter, q, { projection: VIEW_FIELDS, sort });
  let byTicket: Map<string, MessageDoc[]> | undefined;
  if (expand.has('messages')) {
    byTicket = new Map(rows.map((t) => [t._id, [] as MessageDoc[]]));
    if (rows.length) {
      const msgs = await db.messages.find({ ticketId: { $in: rows.map((t) => t._id) } }).sort(CHRONOLOGICAL).lean<MessageDoc[]>();
      for (const m of msgs) byTicket.get(m.ticketId)?.push(m);
    }
  }
  const customers = expand.has('customer') ? await customersOf(deps, ctx, rows) : undefined;
  return {
    data: rows.map((t) => ticketView(t, { customer: customers ? customerOf(customers, t) : undefined, messages: byTicket?.get(t._id) })),
    pagination,
  };
}
