import { CUSTOMERS } from '@helpdesk/contracts';
import { handlersFor } from '@helpdesk/kit';
import type { CustomersRules } from '../rules';

/**
 * `/teams/{teamId}/customer-groups…`. The spec shows customer-group responses without the envelope
 * (the manifest's `shape: 'bare'`): a group, a delete's `{deleted, id}`, the list's `{data, pagination}`.
 */
export const groupHandlers = ({ groups }: CustomersRules) =>
  handlersFor(CUSTOMERS)({
    listCustomerGroups: ({ ctx, query }) => groups.list(ctx, query),
    createCustomerGroup: ({ ctx, body }) => groups.create(ctx, body),
    getCustomerGroup: ({ ctx, params }) => groups.get(ctx, params.groupId),
    updateCustomerGroup: ({ ctx, params, body }) => groups.update(ctx, params.groupId, body),
    deleteCustomerGroup: ({ ctx, params }) => groups.remove(ctx, params.groupId),
  });
