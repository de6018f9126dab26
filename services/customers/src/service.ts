import { CUSTOMERS, CUSTOMERS_INTERNAL } from '@helpdesk/contracts';
import { defineService } from '@helpdesk/kit';
import { consumers } from './consumers';
import { memberHandlers } from './customer-groups/members/handlers';
import { groupHandlers } from './customer-groups/handlers';
import { statusHandlers } from './customer-statuses/handlers';
import { customerHandlers } from './customers/handlers';
import { internalCustomerHandlers } from './customers/internal-handlers';
import { customersModels } from './models';
import { customersRules } from './rules';

/** The customers service: customers, customer groups and their members, customer statuses (docs/adr/0006). */
export const customersService = defineService({
  name: 'customers',
  operations: { ...CUSTOMERS, ...CUSTOMERS_INTERNAL },
  models: customersModels,
  rules: customersRules,
  handlers: (rules) => ({
    ...customerHandlers(rules),
    ...internalCustomerHandlers(rules),
    ...groupHandlers(rules),
    ...memberHandlers(rules),
    ...statusHandlers(rules),
  }),
  consumers,
});
