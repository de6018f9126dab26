import { startService, type RunningService, type ServiceOptions } from '@helpdesk/kit';
import type { CustomersRules } from './rules';
import { customersService } from './service';

export { customersService } from './service';
export type { CustomersRules } from './rules';

export type CustomersOptions = ServiceOptions;
export type RunningCustomers = RunningService<CustomersRules>;

/** Connects (database `customers` by default), builds indexes, starts the outbox relay and the consumers, and listens. */
export function startCustomers(opts: CustomersOptions): Promise<RunningCustomers> {
  return startService(customersService, opts);
}
