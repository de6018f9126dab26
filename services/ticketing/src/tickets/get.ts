import type { GetTicketQuery, TicketView } from '@helpdesk/contracts';
import { notFound, scoped, type RequestContext, type Unscoped } from '@helpdesk/kit';
import type { TicketingModels } from '../collections';
import { customerOf, customersOf, expansions } from './expand';
import { VIEW_FIELDS } from './find';
import { CHRONOLOGICAL, type MessageDoc } from './messages/model';
import type { TicketDoc } from './model';
import { ticketView } from './view';

/** What a message's view needs (its team and partition are the caller's). */
const MESSAGE_FIELDS = { teamId: 0, mode: 0 } as const;

/** `GET /tickets/{id}`: the ticket with its thread, and its customer when expanded. */
export async function getTicket(deps: { models: TicketingModels }, ctx: RequestContext, id: string, q: GetTicketQuery = {}): Promise<TicketView> {
  // The ticket and its thread in one round trip (both queries at once), through the driver
  // (docs/adr/0043: string ids, nothing to cast); no ticket, no answer.
  const db = scoped(deps.models, ctx);
  const [t, msgs] = await Promise.all([
    db.tickets.leanFindOne<TicketDoc>({ _id: id }, { projection: VIEW_FIELDS }),
    db.messages.leanFind<Unscoped<MessageDoc>>({ ticketId: id }, { projection: MESSAGE_FIELDS, sort: CHRONOLOGICAL }),
  ]);
  if (!t) throw notFound('ticket', id);
  if (!expansions(q).has('customer')) return ticketView(t, { messages: msgs });
  return ticketView(t, { messages: msgs, customer: customerOf(await customersOf(deps, ctx, [t]), t) });
}
