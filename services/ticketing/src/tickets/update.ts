import type mongoose from 'mongoose';
import type { TicketView, UpdateTicketInput } from '@helpdesk/contracts';
import { eventScopeOf, parameterInvalid, retrying, withOutbox, type RequestContext } from '@helpdesk/kit';
import type { CustomerFacts } from '../customer-refs/model';
import type { CustomerCalls, CustomerRefs } from '../customer-refs/rules';
import { changeTicketIn, type ChangeTicketDeps, type TicketChanges } from './change';
import { StaleTicket } from './conflicts';
import { ticketView } from './view';

export interface UpdateTicketDeps extends ChangeTicketDeps {
  conn: mongoose.Connection;
  customerRefs: ChangeTicketDeps['customerRefs'] & Pick<CustomerRefs, 'lookup'>;
}

const STALE_RETRIES = 10;

/** `PATCH /tickets/{id}` in its own transaction, re-run from a fresh read when it loses a race. */
export async function updateTicket(deps: UpdateTicketDeps, ctx: RequestContext, id: string, input: UpdateTicketInput, customers: CustomerCalls): Promise<TicketView> {
  if (input.status === 'merged') {
    throw parameterInvalid('status', "Invalid status: 'merged' cannot be set through PATCH; only the ticket merge operation sets it.");
  }
  // Moving the ticket to another customer: checked as a create's customerId is (404 when it does not exist).
  let customer: CustomerFacts | null | undefined;
  if (input.customerId !== undefined) customer = input.customerId === null ? null : await deps.customerRefs.lookup(ctx, input.customerId, customers);
  const { customerId: _customerId, status, ...rest } = input;
  const changes: TicketChanges = { ...rest, ...(status !== undefined ? { status } : {}), ...(customer !== undefined ? { customer } : {}) };
  const attempt = () => withOutbox(deps.conn, eventScopeOf(ctx), async (session, emit) => (await changeTicketIn(deps, session, emit, ctx, id, changes)).next);
  return ticketView(await retrying(attempt, (err) => err instanceof StaleTicket, STALE_RETRIES));
}
