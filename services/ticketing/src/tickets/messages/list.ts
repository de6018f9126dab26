import type { MessageView, Page } from '@helpdesk/contracts';
import { findPage, scoped, type RequestContext } from '@helpdesk/kit';
import type { TicketingModels } from '../../collections';
import { findTicketOr404 } from '../find';
import { CHRONOLOGICAL } from './model';
import { messageView } from './view';

/** `GET /tickets/{id}/messages`: the thread, oldest first; 404 when the ticket is not in the caller's team and partition. */
export async function listMessages(deps: { models: TicketingModels }, ctx: RequestContext, ticketId: string, q: { page: number; pageSize: number }): Promise<Page<MessageView>> {
  await findTicketOr404(deps, ctx, ticketId);
  const { rows, pagination } = await findPage(scoped(deps.models, ctx).messages, { ticketId }, q, { sort: CHRONOLOGICAL });
  return { data: rows.map(messageView), pagination };
}
