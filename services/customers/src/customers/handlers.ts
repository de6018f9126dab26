import { CUSTOMERS } from '@helpdesk/contracts';
import { handlersFor } from '@helpdesk/kit';
import type { CustomersRules } from '../rules';

/** `/teams/{teamId}/customers…`: the team and partition come from the internal token, never the URL. */
export const customerHandlers = ({ customers }: CustomersRules) =>
  handlersFor(CUSTOMERS)({
    listCustomers: ({ ctx, query }) => customers.list(ctx, query),
    createCustomer: ({ ctx, body }) => customers.create(ctx, body),
    getCustomer: ({ ctx, params }) => customers.get(ctx, params.customerId),
    updateCustomer: ({ ctx, params, body }) => customers.update(ctx, params.customerId, body),
    deleteCustomer: ({ ctx, params }) => customers.remove(ctx, params.customerId),
  });
