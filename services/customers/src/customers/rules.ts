import type mongoose from 'mongoose';
import type { CreateCustomerInput, CustomerSnapshot, ListCustomersQuery, MessageSnapshot, UpdateCustomerInput } from '@helpdesk/contracts';
import type { Emit, RequestContext, Scope } from '@helpdesk/kit';
import { createCustomer, createCustomers, createImplicitCustomer, createPendingCustomer } from './create';
import { listCustomers } from './list';
import type { CustomerFields, CustomerStore, KnownStatuses } from './port';
import { customerSnapshotOf, findCustomerByEmail, findCustomerOr404, getCustomer } from './read';
import { removeCustomer } from './remove';
import { addCustomerMessages, adjustTicketCounts } from './ticket-effects';
import { updateCustomer } from './update';

export interface CustomerRulesDeps extends CustomerStore {
  statuses: KnownStatuses;
  customFields: CustomerFields;
}

/** The customers' use cases (docs/adr/0006), bound to their dependencies once for handlers, consumers and sign-ups. */
export function customerRules(deps: CustomerRulesDeps) {
  return {
    findOr404: (scope: Scope, id: string, session?: mongoose.ClientSession) => findCustomerOr404(deps, scope, id, session),
    list: (ctx: RequestContext, q: ListCustomersQuery, sort?: Record<string, 1 | -1>) => listCustomers(deps, ctx, q, sort),
    get: (ctx: RequestContext, id: string) => getCustomer(deps, ctx, id),
    create: (ctx: RequestContext, input: CreateCustomerInput) => createCustomer(deps, ctx, input),
    createMany: (ctx: RequestContext, inputs: readonly CreateCustomerInput[]) => createCustomers(deps, ctx, inputs),
    createImplicit: (ctx: RequestContext, name: string) => createImplicitCustomer(deps, ctx, name),
    createPending: (ctx: RequestContext, name: string, email: string, also?: (session: mongoose.ClientSession, emit: Emit, customer: CustomerSnapshot) => Promise<void>) =>
      createPendingCustomer(deps, ctx, name, email, also),
    findByEmail: (ctx: RequestContext, email: string) => findCustomerByEmail(deps, ctx, email),
    snapshot: (ctx: RequestContext, id: string) => customerSnapshotOf(deps, ctx, id),
    update: (ctx: RequestContext, id: string, input: UpdateCustomerInput) => updateCustomer(deps, ctx, id, input),
    remove: (ctx: RequestContext, id: string) => removeCustomer(deps, ctx, id),
    adjustTicketCounts: (adjustments: readonly { scope: Scope; customerId: string; delta: number }[], session: mongoose.ClientSession) => adjustTicketCounts(deps, adjustments, session),
    addMessages: (scope: Scope, customerId: string, messages: MessageSnapshot[], session: mongoose.ClientSession, emit: Emit) =>
      addCustomerMessages(deps, scope, customerId, messages, session, emit),
  };
}

export type CustomerRules = ReturnType<typeof customerRules>;
