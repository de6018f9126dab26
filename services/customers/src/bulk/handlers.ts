import { createCustomerBody, CUSTOMERS_BULK_INTERNAL, updateCustomerBody, type CreateCustomerInput, type ImportRow } from '@helpdesk/contracts';
import { ApiError, eachId, exportPage, handlersFor, importRows, parseInput, scoped, type ServiceDeps } from '@helpdesk/kit';
import type { CustomerDoc } from '../customers/model';
import { customerView } from '../customers/view';
import type { CustomersModels } from '../collections';
import type { CustomersRules } from '../rules';
import { createAll, refusalOr } from './create';
import { ensureRequesters } from './requesters';

/** A customer's match key on import (docs/adr/0037): its email, case-insensitive. */
const emailOf = (row: ImportRow) => (typeof row.data.email === 'string' ? row.data.email : null);

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
        createMany: async (rows) => {
          const parsed = rows.map((row) => refusalOr(() => parseInput(createCustomerBody, row.data)));
          const created = await createAll(customers, ctx, parsed.filter((p): p is CreateCustomerInput => !(p instanceof ApiError)));
          let next = 0;
          return parsed.map((p) => (p instanceof ApiError ? p : { id: created[next++].id }));
        },
        update: async (id, row) => ({ id: (await customers.update(ctx, id, parseInput(updateCustomerBody, row.data))).id }),
      });
      return { outcomes };
    },

    ensureRequesters: ({ ctx, body }) => ensureRequesters({ models, customers }, ctx, body.requesters),
  });
