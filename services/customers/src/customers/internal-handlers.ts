import { CUSTOMERS_INTERNAL } from '@helpdesk/contracts';
import {
  foundOr404,
  handlersFor,
} from '@helpdesk/kit';
import type { CustomersRules } from '../rules';

/**
 * `/internal/customers…`: for the ticketing service, which needs an answer at once when a ticket
 * names a customer (services/customers/README.md). Never routed by the gateway; the caller's
 * forwarded internal token gives the team and partition. Answers are customer snapshots (with `rev`).
 */
export const internalCustomerHandlers = ({ customers }: CustomersRules) =>
  handlersFor(CUSTOMERS_INTERNAL)({
    findCustomerByEmail: async ({ ctx, query }) => {
      return foundOr404(customers.findByEmail(ctx, query.email), 'customer with this email');
    },
    getCustomerSnapshot: ({ ctx, params }) => customers.snapshot(ctx, params.customerId),
    createImplicitCustomer: ({ ctx, body }) => customers.createImplicit(ctx, body.name),
  });
