import { CUSTOMERS, CUSTOMERS_BULK_INTERNAL, CUSTOMERS_INTERNAL, CUSTOMERS_SEARCH_INTERNAL, CUSTOMERS_WIDGET_INTERNAL } from '@helpdesk/contracts';
import { defineService } from '@helpdesk/kit';
import { customerSearchHandlers } from './search/handlers';
import { customerBulkHandlers } from './bulk/handlers';
import { consumers } from './consumers';
import { memberHandlers } from './customer-groups/members/handlers';
import { groupHandlers } from './customer-groups/handlers';
import { statusHandlers } from './customer-statuses/handlers';
import { customerHandlers } from './customers/handlers';
import { internalCustomerHandlers } from './customers/internal-handlers';
import { customersModels } from './collections';
import { customersRules } from './rules';
import { widgetSignUpHandlers } from './widget-sign-ups/handlers';

/** The customers service: customers, customer groups and their members, customer statuses (docs/adr/0006). */
export const customersService = defineService({
  name: 'customers',
  operations: { ...CUSTOMERS, ...CUSTOMERS_INTERNAL, ...CUSTOMERS_BULK_INTERNAL, ...CUSTOMERS_SEARCH_INTERNAL, ...CUSTOMERS_WIDGET_INTERNAL },
  models: customersModels,
  rules: customersRules,
  handlers: (rules, deps) => ({
    ...customerHandlers(rules),
    ...internalCustomerHandlers(rules),
    ...groupHandlers(rules),
    ...memberHandlers(rules),
    ...statusHandlers(rules),
    ...customerBulkHandlers(rules, deps),
    ...customerSearchHandlers(rules, deps.models),
    ...widgetSignUpHandlers(rules),
  }),
  consumers,
});
