import { call, logger, startDetached as detached, startServiceHarness, tokens, type Caller, type ServiceHarness } from '@helpdesk/testing';
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

/**
 * A test file's harness: started before its tests (handed to `ready`, which keeps it in the file's
 * own variable) and stopped after them; with the calls the files share.
 */
export function useHarness(ready: (h: Harness) => void) {
  let h: Harness | undefined;
  beforeAll(async () => {
    h = await startHarness();
    ready(h);
  }, 30_000);
  afterAll(async () => {
    await h?.stop();
  });
  const api = (method: string, path: string, opts: { as?: Caller | null; body?: unknown } = {}) => call(h!.url, method, path, opts);
  return {
    api,
    /** POST /tickets, expected to answer 201: the ticket. */
    async createTicket(body: Record<string, unknown>, as?: Caller) {
      const r = await api('POST', '/teams/{team}/tickets', { body, as });
      expect(r.status).toBe(201);
      return r.body.data;
    },
    /** Documents of ticketing's collection `coll` matching `filter`. */
    count: (coll: string, filter: Record<string, unknown> = {}) => h!.svc.conn.collection(coll).countDocuments(filter),
  };
}
