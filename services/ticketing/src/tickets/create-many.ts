import type { CreateTicketInput, TicketView } from '@helpdesk/contracts';
import { ApiError, type CustomFieldRules, type RequestContext } from '@helpdesk/kit';
import type { Clock } from '../clock';
import type { CustomerFacts } from '../customer-refs/model';
import { buildTicket, type NewTicket } from './build';
import { insertTickets, type InsertTicketsDeps } from './insert';

export interface CreateTicketsDeps extends InsertTicketsDeps {
  customFields: Pick<CustomFieldRules, 'resolverFor'>;
  clock: Clock;
}

/**
 * Import (docs/adr/0037): many tickets, each built and checked by the create rule, written in ONE
 * transaction with one `ticket.created` each. A refusal while building (a custom field value)
 * fails that item alone (its ApiError in its place); a refusal while writing refuses them all.
 */
export async function createTickets(
  deps: CreateTicketsDeps,
  ctx: RequestContext,
  items: readonly { input: CreateTicketInput; customer: CustomerFacts | null; channel?: string }[],
): Promise<(TicketView | ApiError)[]> {
  // The team's field definitions are read once for all the tickets.
  const resolveFields = await deps.customFields.resolverFor(ctx);
  const built = await Promise.all(
    items.map((it) =>
      buildTicket(deps, it.input, it.customer, it.channel ?? 'api', resolveFields).catch((err: unknown) => {
        if (err instanceof ApiError && err.status < 500) return err;
        throw err;
      }),
    ),
  );
  const valid = built.filter((b): b is NewTicket => !(b instanceof ApiError));
  const views = valid.length ? await insertTickets(deps, ctx, valid) : [];
  let next = 0;
  return built.map((b) => (b instanceof ApiError ? b : views[next++]));
}
