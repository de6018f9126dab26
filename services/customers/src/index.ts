import { startService, type RunningService, type ServiceOptions } from '@helpdesk/kit';
import { buildApp } from './app';
import { initModels } from './models';
import { subscribeConsumers } from './consumers';

export { buildApp } from './app';

export type CustomersOptions = ServiceOptions;
export type RunningCustomers = RunningService;

/** Connects (database `customers` by default), builds indexes, starts the outbox relay and the consumers, and listens. */
export function startCustomers(opts: CustomersOptions): Promise<RunningCustomers> {
  return startService(
    {
      name: 'customers',
      init: initModels,
      subscribe: (bus, conn) => subscribeConsumers(bus, { conn, logger: opts.logger }),
      app: (conn) => buildApp({ conn, tokens: opts.tokens, logger: opts.logger }),
    },
    opts,
  );
}
