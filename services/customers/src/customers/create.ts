import type mongoose from 'mongoose';
import type { CreateCustomerInput, CustomerSnapshot } from '@helpdesk/contracts';
import { conflictOnDuplicate, eventScopeOf, newId, scoped, withOutbox, withoutNulls, type Emit, type RequestContext, type Unscoped } from '@helpdesk/kit';
import { customerSearchTokens, type CustomerDoc } from './model';
import type { CustomerFields, CustomerStore } from './port';
import { customerSnapshot, customerView, type CustomerView } from './view';

export const EMAIL_TAKEN = { emailLower: { param: 'email', message: 'A customer with this email already exists.' } };

/** A new customer document: status `active`, sentiment `neutral`, no tickets. */
function newCustomer(fields: Pick<CustomerDoc, 'name' | 'email' | 'tags' | 'notes' | 'metadata'>): Unscoped<CustomerDoc> {
  const now = new Date();
  return {
    _id: newId('customer'),
    ...fields,
    emailLower: fields.email === null ? null : fields.email.toLowerCase(),
    ...customerSearchTokens(fields),
    status: 'active',
    sentiment: 'neutral',
    sentimentOverride: null,
    sentimentCalculated: 'neutral',
    sentimentScores: [],
    ticketCount: 0,
    groupCount: 0,
    rev: 0,
    createdAt: now,
    updatedAt: now,
  };
}

/** Customers written in one transaction, one `customer.created` each (a taken email refuses them all: a 409 for one, a duplicate-key error for many). */
async function insertCustomers(
  { conn, models }: CustomerStore,
  ctx: RequestContext,
  docs: Unscoped<CustomerDoc>[],
  also?: (session: mongoose.ClientSession, emit: Emit) => Promise<void>,
): Promise<Unscoped<CustomerDoc>[]> {
  const db = scoped(models, ctx);
  await conflictOnDuplicate(
    () =>
      withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
        // One customer: create, whose duplicate-key error names the index (a 409 param email); many: one insertMany.
        if (docs.length === 1) await db.customers.create(docs, { session });
        // Built field by field (newCustomerOf): inserted lean, without hydrating them again (docs/adr/0019).
        else await db.customers.insertMany(docs, { session, lean: true });
        for (const doc of docs) emit({ type: 'customer.created', data: { customer: customerSnapshot(doc) } });
        if (also) await also(session, emit);
      }),
    EMAIL_TAKEN,
  );
  return docs;
}

type ResolveFields = (given: Record<string, unknown> | undefined, current: null) => Record<string, unknown> | Promise<Record<string, unknown>>;

/** A new customer's document from the validated create input (no write yet). */
async function newCustomerOf(input: CreateCustomerInput, resolveFields: ResolveFields): Promise<Unscoped<CustomerDoc>> {
  const doc = newCustomer({
    name: input.name,
    email: input.email,
    tags: input.tags ?? [],
    notes: input.notes ?? null,
    metadata: withoutNulls(input.metadata ?? {}),
  });
  doc.customFields = await resolveFields(input.customFields, null);
  return doc;
}

export async function createCustomer(deps: CustomerStore & { customFields: CustomerFields }, ctx: RequestContext, input: CreateCustomerInput): Promise<CustomerView> {
  const [doc] = await insertCustomers(deps, ctx, [await newCustomerOf(input, (given, current) => deps.customFields.resolve(ctx, given, current))]);
  return customerView(doc!);
}

/**
 * Import (docs/adr/0037): many customers through the create rule, written in ONE transaction with
 * one `customer.created` each. A refusal (a custom field value, a taken email) refuses them all:
 * the caller validates first and falls back to one by one.
 */
export async function createCustomers(deps: CustomerStore & { customFields: CustomerFields }, ctx: RequestContext, inputs: readonly CreateCustomerInput[]): Promise<CustomerView[]> {
  // Many customers (an import chunk) read the team's field definitions once: customFields.resolverFor.
  const resolveFields = await deps.customFields.resolverFor(ctx);
  const docs = await Promise.all(inputs.map((input) => newCustomerOf(input, resolveFields)));
  return (await insertCustomers(deps, ctx, docs)).map(customerView);
}

/** Internal operation: a customer known only by name (a ticket named only `customerName`). */
export async function createImplicitCustomer(deps: CustomerStore, ctx: RequestContext, name: string): Promise<CustomerSnapshot> {
  const [doc] = await insertCustomers(deps, ctx, [newCustomer({ name, email: null, tags: [], notes: null, metadata: {} })]);
  return customerSnapshot(doc!);
}

/** A widget sign-up (docs/adr/0040): a customer with an email not confirmed yet, status `pending`; 409 when the email is taken. */
export async function createPendingCustomer(
  deps: CustomerStore,
  ctx: RequestContext,
  name: string,
  email: string,
  also?: (session: mongoose.ClientSession, emit: Emit, customer: CustomerSnapshot) => Promise<void>,
): Promise<CustomerSnapshot> {
  const pending: Unscoped<CustomerDoc> = { ...newCustomer({ name, email, tags: [], notes: null, metadata: {} }), status: 'pending' };
  const [doc] = await insertCustomers(deps, ctx, [pending], also && ((session, emit) => also(session, emit, customerSnapshot(pending))));
  return customerSnapshot(doc!);
}
