import { CUSTOMERS_INTERNAL } from '@helpdesk/contracts';
import { handlersFor, notFound } from '@helpdesk/kit';
import type { CustomersRules } from '../rules';

/**
 * `/internal/customers…`: for the ticketing service, which needs an answer at once when a ticket
 * names a customer (services/customers/README.md). Never routed by the gateway; the caller's
 * forwarded internal token gives the team and partition. Answers are customer snapshots (with `rev`).
 */
export const internalCustomerHandlers = ({ customers }: CustomersRules) =>
  handlersFor(CUSTOMERS_INTERNAL)({
    findCustomerByEmail: async ({ ctx, query }) => {
      const found = await customers.findByEmail(ctx, query.email);
      if (!found) throw notFound('customer with this email');
      return found;
    },
    getCustomerSnapshot: ({ ctx, params }) => customers.snapshot(ctx, params.customerId),
    createImplicitCustomer: ({ ctx, body }) => customers.createImplicit(ctx, body.name),
  });
