import { createCustomerBody, CUSTOMERS_BULK_INTERNAL, updateCustomerBody, type ImportRow } from '@helpdesk/contracts';
import { ApiError, eachId, exportPage, handlersFor, importRows, mapConcurrently, parseInput, scoped, type ServiceDeps } from '@helpdesk/kit';
import type { CustomerDoc } from '../customers/model';
import { customerSnapshot, customerView } from '../customers/view';
import type { CustomersModels } from '../models';
import type { CustomersRules } from '../rules';

/** A customer's match key on import (docs/adr/0037): its email, case-insensitive. */
const emailOf = (row: ImportRow) => (typeof row.data.email === 'string' ? row.data.email : null);

/** How many requesters or rows are written at once (each one its own transaction, as one request). */
const CONCURRENCY = 4;

/**
 * `/internal/{bulk,export,import}/customers` and ticket import's requesters (docs/adr/0036, 0037):
 * every customer goes through the customer rules (PATCH, DELETE, create), with their validation and events.
 */
export const customerBulkHandlers = ({ customers }: CustomersRules, { models }: ServiceDeps<CustomersModels>) =>
  handlersFor(CUSTOMERS_BULK_INTERNAL)({
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
      const answers = await mapConcurrently([...byEmail.values()], CONCURRENCY, async ({ email, name }) => {
        try {
          const found = known.get(email.toLowerCase());
          if (found) return { email, customer: found };
          const created = await customers.create(ctx, parseInput(createCustomerBody, { email, name: name?.trim() || email.split('@')[0] }));
          // A new customer's snapshot is its view at revision 0.
          return { email, customer: { ...created, rev: 0 } };
        } catch (err) {
          // A refused requester (an invalid email) fails its tickets' rows, not the import.
          if (!(err instanceof ApiError) || err.status >= 500) throw err;
          return { email, customer: null, error: err.message };
        }
      });
      return { customers: answers };
    },
  });
