import type mongoose from 'mongoose';
import { notFound, scoped, type Scope } from '@helpdesk/kit';
import type { TicketingModels } from '../collections';
import type { TicketDoc } from './model';

/** What a read needs: the view's fields (not the search text, the scope, the customer's cached name and email, the revision). */
export const VIEW_FIELDS = { searchText: 0, searchTokens: 0, titleTokens: 0, teamId: 0, mode: 0, customerName: 0, customerEmail: 0, rev: 0, slaNextDueAt: 0 } as const;

/** A ticket of the scope or a 404. A read loads the view's fields only; `forWrite` loads the whole document (search text, revision…). */
export async function findTicketOr404(
  { models }: { models: TicketingModels },
  scope: Scope,
  id: string,
  session?: mongoose.ClientSession,
  forWrite = false,
): Promise<TicketDoc> {
  const t = await scoped(models, scope)
    .tickets.findOne({ _id: id }, forWrite ? undefined : VIEW_FIELDS)
    .session(session ?? null)
    .lean<TicketDoc>();
  if (!t) throw notFound('ticket', id);
  return t;
}
