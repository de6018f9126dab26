import { logger, startDetached as detached, startServiceHarness, tokens, type ServiceHarness } from '@helpdesk/testing';
import { startTicketing, ticketingService, type TicketingRules } from '../src';
import { FakeCustomers } from './fake-customers';

export { call, expectError, TEAM_A, TEAM_B, TEST_INTERNAL_SECRET as SECRET, type Caller, type Reply } from '@helpdesk/testing';

export interface Harness extends ServiceHarness<TicketingRules> {
  /** The customers service's internal operations, faked (tests add customers with `customers.put`). */
  customers: FakeCustomers;
}

/** Ticketing on the shared harness, with the customers service faked; records every ticket.* and sla.* event. */
export async function startHarness(): Promise<Harness> {
  const customers = await new FakeCustomers(tokens, logger).start();
  const h = await startServiceHarness((opts) => startTicketing({ ...opts, customersUrl: customers.url }), { observe: ['ticket.*', 'sla.*'] });
  return {
    ...h,
    customers,
    async stop() {
      await h.stop();
      await customers.stop();
    },
  };
}

/** The app with no database behind it. */
export const startDetached = () => detached(ticketingService({ customersUrl: 'http://127.0.0.1:9' }));
