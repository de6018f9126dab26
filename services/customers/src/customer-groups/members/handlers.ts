import { CUSTOMERS } from '@helpdesk/contracts';
import { handlersFor } from '@helpdesk/kit';
import type { CustomersRules } from '../../rules';

/** `/teams/{teamId}/customer-groups/{groupId}/members`: without the envelope, like every customer-group response. */
export const memberHandlers = ({ members }: CustomersRules) =>
  handlersFor(CUSTOMERS)({
    listCustomerGroupMembers: ({ ctx, params, query }) => members.list(ctx, params.groupId, query),
    addCustomerGroupMembers: ({ ctx, params, body }) => members.add(ctx, params.groupId, body),
    removeCustomerGroupMember: ({ ctx, params, query }) => members.remove(ctx, params.groupId, query.customerId),
  });
