import { randomUUID } from 'node:crypto';
import mongoose from 'mongoose';
import type { EventEnvelope } from '@helpdesk/contracts';
import { createLogger, InternalTokens, listen, closeServer } from '@helpdesk/kit';
import type { AddressInfo } from 'node:net';
import { startEmbeddedMongo } from '@helpdesk/mongo-embedded';
import { buildApp } from '../src/app';
import { startTicketing, type RunningTicketing } from '../src/index';
import { createBus, type EventBus } from '../src/outbox';
import { FakeCustomers } from './fake-customers';
// Deep import: @helpdesk/testing's index also loads the whole platform, which a service test does not need.
import { serviceCaller, TEST_INTERNAL_SECRET, type Caller, type Reply } from '@helpdesk/testing/src/service';

export const SECRET = TEST_INTERNAL_SECRET;
export const TEAM_A = randomUUID();
export const TEAM_B = randomUUID();
export const tokens = new InternalTokens(SECRET);
export const logger = createLogger('ticketing-test', 'silent');

export type { Caller, Reply };
/** Calls the service as the gateway would: a path (`{team}` = the caller's team) plus an internal token. */
export const call = serviceCaller(tokens, TEAM_A);

/** The app with no database behind it: enough for everything refused before the first query. */
export async function startDetached(): Promise<{ url: string; stop: () => Promise<void> }> {
  const conn = mongoose.createConnection();
  const app = buildApp({ conn, tokens, logger, customersUrl: 'http://127.0.0.1:9' });
  const server = await listen(app, 0, '127.0.0.1');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    stop: async () => {
      await closeServer(server);
      await conn.close();
    },
  };
}

export interface Harness {
  svc: RunningTicketing;
  /** The customers service's internal endpoints, faked (tests add customers with `customers.put`). */
  customers: FakeCustomers;
  bus: EventBus;
  url: string;
  events: EventEnvelope[];
  /** Events published for one request (waits for the outbox relay to drain first). */
  eventsOf(requestId: string): Promise<EventEnvelope[]>;
  stop(): Promise<void>;
}

/** The real service on the embedded MongoDB-compatible server and the memory bus. */
export async function startHarness(): Promise<Harness> {
  const m = await startEmbeddedMongo();
  const bus = createBus({ logger });
  const events: EventEnvelope[] = [];
  await bus.subscribe('ticketing-test', ['ticket.*'], async (e) => {
    events.push(e);
  });
  const customers = await new FakeCustomers(tokens).start();
  const svc = await startTicketing({ mongoUrl: m.uri(), dbName: 'ticketing', bus, tokens, logger, customersUrl: customers.url });
  return {
    svc,
    customers,
    bus,
    url: svc.url,
    events,
    async eventsOf(requestId) {
      await svc.relay.drain(5_000);
      await new Promise((r) => setTimeout(r, 10));
      return events.filter((e) => e.requestId === requestId);
    },
    async stop() {
      await svc.stop();
      await customers.stop();
      await bus.close();
      await m.close();
    },
  };
}
