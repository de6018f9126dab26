import { startDetached as detached, startServiceHarness, type ServiceHarness } from '@helpdesk/testing';
import { customersService, startCustomers, type CustomersRules } from '../src';

export { call, expectError, TEAM_A, TEAM_B, TEST_INTERNAL_SECRET as SECRET, type Caller, type Reply } from '@helpdesk/testing';

export type Harness = ServiceHarness<CustomersRules>;

/** The customers service on the shared harness; records every customer.*, customer_group.* and customer_status.* event. */
export const startHarness = (): Promise<Harness> =>
  startServiceHarness(startCustomers, { observe: ['customer.#', 'customer_group.#', 'customer_status.#'] });

/** The app with no database behind it. */
export const startDetached = () => detached(customersService);
