import { CUSTOMERS } from '@helpdesk/contracts';
import { handlersFor } from '@helpdesk/kit';
import type { CustomersRules } from '../rules';

/** `/teams/{teamId}/customer-statuses…`: reads need `view_customers`, writes `manage_settings` (the manifest says so). */
export const statusHandlers = ({ statuses }: CustomersRules) =>
  handlersFor(CUSTOMERS)({
    listCustomerStatuses: ({ ctx }) => statuses.list(ctx),
    createCustomerStatus: ({ ctx, body }) => statuses.create(ctx, body),
    updateCustomerStatus: ({ ctx, params, body }) => statuses.update(ctx, params.statusKey, body),
    deleteCustomerStatus: ({ ctx, params }) => statuses.remove(ctx, params.statusKey),
  });
