import { createCustomerBody, CUSTOMERS_BULK_INTERNAL, updateCustomerBody, type CreateCustomerInput, type CustomerSnapshot, type ImportRow } from '@helpdesk/contracts';
import { ApiError, conflict, duplicateKeyOf, eachId, exportPage, handlersFor, IMPORT_CHUNK, importRows, mapConcurrently, parseInput, scoped, type RequestContext, type ServiceDeps } from '@helpdesk/kit';
import type { CustomerDoc } from '../customers/model';
import { customerSnapshot, customerView, type CustomerView } from '../customers/view';
import type { CustomersModels } from '../models';
import type { CustomersRules } from '../rules';

/** A customer's match key on import (docs/adr/0037): its email, case-insensitive. */
const emailOf = (row: ImportRow) => (typeof row.data.email === 'string' ? row.data.email : null);

/** How many requesters or rows are written at once (each one its own transaction, as one request). */
const CONCURRENCY = 4;

/** A refusal (4xx) as a value, so it fails one row; a fault (5xx, a bug) is thrown. */
function refusal(err: unknown): ApiError {
  if (err instanceof ApiError && err.status < 500) return err;
  throw err;
}

function refusalOr<T>(fn: () => T): T | ApiError {
  try {
    return fn();
  } catch (err) {
    return refusal(err);
  }
}

/**
 * `/internal/{bulk,export,import}/customers` and ticket import's requesters (docs/adr/0036, 0037):
 * every customer goes through the customer rules (PATCH, DELETE, create), with their validation and events.
 */
export const customerBulkHandlers = ({ customers }: CustomersRules, { models }: ServiceDeps<CustomersModels>) => {
  /** New customers in one transaction; a duplicate email (two rows, or one taken meanwhile) refuses them all as a 409. */
  const createAll = async (ctx: RequestContext, inputs: CreateCustomerInput[]): Promise<CustomerView[]> => {
    if (!inputs.length) return [];
    try {
      return await customers.createMany(ctx, inputs);
    } catch (err) {
      if (duplicateKeyOf(err)) throw conflict('A customer with this email already exists.', 'email');
      throw err;
    }
  };
  return handlersFor(CUSTOMERS_BULK_INTERNAL)({
    bulkCustomers: async ({ ctx, body }) => {
      if (body.action === 'delete') return eachId(body.ids, (id) => customers.remove(ctx, id));
      const data = parseInput(updateCustomerBody, body.data ?? {});
      return eachId(body.ids, (id) => customers.update(ctx, id, data));
    },

    exportCustomersPage: ({ ctx, body }) =>
      exportPage<CustomerDoc>(scoped(models, ctx).customers, body, {
        view: customerView,
        filterOf: (f) => (f.status ? { status: f.status } : {}),
      }),

    importCustomerRows: async ({ ctx, body }) => {
      const outcomes = await importRows(body.rows, body.mergeStrategy, {
        match: async (row) => {
          const email = emailOf(row);
          return email ? ((await customers.findByEmail(ctx, email))?.id ?? null) : null;
        },
        matchLabel: (row) => `the customer with email '${emailOf(row) ?? ''}'`,
        create: async (row) => ({ id: (await customers.create(ctx, parseInput(createCustomerBody, row.data))).id }),
        createMany: async (rows) => {
          const parsed = rows.map((row) => refusalOr(() => parseInput(createCustomerBody, row.data)));
          const created = await createAll(ctx, parsed.filter((p): p is CreateCustomerInput => !(p instanceof ApiError)));
          let next = 0;
          return parsed.map((p) => (p instanceof ApiError ? p : { id: created[next++].id }));
        },
        update: async (id, row) => ({ id: (await customers.update(ctx, id, parseInput(updateCustomerBody, row.data))).id }),
      });
      return { outcomes };
    },

    ensureRequesters: async ({ ctx, body }) => {
      const byEmail = new Map<string, { email: string; name: string | null }>();
      for (const r of body.requesters) if (!byEmail.has(r.email.toLowerCase())) byEmail.set(r.email.toLowerCase(), r);
      // The existing ones in one query; each missing one created through the customer rules.
      const existing = await scoped(models, ctx).customers.find({ emailLower: { $in: [...byEmail.keys()] } }).lean<CustomerDoc[]>();
      const known = new Map(existing.map((c) => [c.emailLower, customerSnapshot(c)]));
      const inputOf = ({ email, name }: { email: string; name: string | null }) => parseInput(createCustomerBody, { email, name: name?.trim() || email.split('@')[0] });
      // A new customer's snapshot is its view at revision 0.
      const answerOf = (email: string, created: CustomerView) => ({ email, customer: { ...created, rev: 0 } });
      // A refused requester (an invalid email) fails its tickets' rows, not the import.
      const refusedOf = (email: string, err: ApiError) => ({ email, customer: null, error: err.message });
      const answers: { email: string; customer: CustomerSnapshot | null; error?: string }[] = [];
      const missing: { email: string; name: string | null }[] = [];
      for (const r of byEmail.values()) {
        const found = known.get(r.email.toLowerCase());
        if (found) answers.push({ email: r.email, customer: found });
        else missing.push(r);
      }
      const chunks = Array.from({ length: Math.ceil(missing.length / IMPORT_CHUNK) }, (_, i) => missing.slice(i * IMPORT_CHUNK, (i + 1) * IMPORT_CHUNK));
      // Chunks CONCURRENCY at a time (one transaction each; the emails are distinct).
      await mapConcurrently(chunks, CONCURRENCY, async (rows) => {
        const chunk = rows.map((r) => ({ email: r.email, input: refusalOr(() => inputOf(r)) }));
        const valid = chunk.filter((c): c is { email: string; input: CreateCustomerInput } => !(c.input instanceof ApiError));
        try {
          // The new ones in one transaction (one customer.created each).
          const created = await createAll(ctx, valid.map((c) => c.input));
          valid.forEach((c, k) => answers.push(answerOf(c.email, created[k])));
        } catch (err) {
          refusal(err);
          // Refused as a whole (an email taken meanwhile): nothing written; one by one, each failing alone.
          answers.push(
            ...(await mapConcurrently(valid, CONCURRENCY, async (c) => {
              const one = await customers.create(ctx, c.input).catch(refusal);
              return one instanceof ApiError ? refusedOf(c.email, one) : answerOf(c.email, one);
            })),
          );
        }
        for (const c of chunk) if (c.input instanceof ApiError) answers.push(refusedOf(c.email, c.input));
      });
      return { customers: answers };
    },
  });
};
