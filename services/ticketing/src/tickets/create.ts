import type mongoose from 'mongoose';
import type { CreateTicketInput, TicketView } from '@helpdesk/contracts';
import { ApiError, type CustomFieldRules, type RequestContext } from '@helpdesk/kit';
import type { Clock } from '../clock';
import type { CustomerFacts } from '../customer-refs/model';
import type { CustomerCalls, CustomerRefs } from '../customer-refs/rules';
import { buildTicket } from './build';
import { insertTickets, type InsertTicketsDeps } from './insert';

export interface CreateTicketDeps extends InsertTicketsDeps {
  customerRefs: InsertTicketsDeps['customerRefs'] & Pick<CustomerRefs, 'lookup'>;
  customFields: Pick<CustomFieldRules, 'resolve'>;
  clock: Clock;
}

/**
 * How a create finds its customer (docs/adr/0037, 0040): the one the caller has already found or
 * created (import, the widget), else the one the input names.
 */
export interface CreateTicketOptions {
  channel?: string;
  customer?: CustomerFacts | null;
  /** The caller's own writes in the ticket's transaction (the widget's conversation). */
  also?: (session: mongoose.ClientSession, ticketId: string) => Promise<void>;
}

/**
 * Which customer a create names: customerId must exist in the team and partition (404), checked
 * against the projection, the customers service asked only on first sight (docs/adr/0055); else
 * customerEmail must be some customer's (422 customer_not_found) and else customerName creates one,
 * both asked of the customers service (an answer needed now: an email may have moved, docs/adr/0004).
 */
async function resolveCustomer(
  customerRefs: Pick<CustomerRefs, 'lookup'>,
  ctx: RequestContext,
  input: CreateTicketInput,
  customers: CustomerCalls,
): Promise<CustomerFacts | null> {
  if (input.customerId) return customerRefs.lookup(ctx, input.customerId, customers);
  if (input.customerEmail) {
    const c = await customers.call('findCustomerByEmail', { query: { email: input.customerEmail } });
    if (!c) {
      throw new ApiError(
        'customer_not_found',
        `No customer has the email '${input.customerEmail}'. Create the customer first, or send customerName without customerEmail.`,
        'customerEmail',
      );
    }
    return c;
  }
  if (input.customerName?.trim()) return (await customers.call('createImplicitCustomer', { body: { name: input.customerName.trim() } }))!;
  return null;
}

/** `POST /tickets`, and the tickets the widget and inbound email open: one ticket, its messages and `ticket.created` in one transaction. */
export async function createTicket(
  deps: CreateTicketDeps,
  ctx: RequestContext,
  input: CreateTicketInput,
  customers: CustomerCalls,
  opts: CreateTicketOptions = {},
): Promise<TicketView> {
  const customer = opts.customer !== undefined ? opts.customer : await resolveCustomer(deps.customerRefs, ctx, input, customers);
  const also = opts.also;
  const built = await buildTicket(deps, input, customer, opts.channel ?? 'api', (given, current) => deps.customFields.resolve(ctx, given, current));
  const [view] = await insertTickets(deps, ctx, [built], also && ((session, ids) => also(session, ids[0])));
  return view;
}
