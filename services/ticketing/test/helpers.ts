import { randomUUID } from 'node:crypto';
import mongoose from 'mongoose';
import { PERMISSIONS, type EventEnvelope, type InternalClaims, type Permission } from '@helpdesk/contracts';
import { createLogger, InternalTokens, listen, closeServer } from '@helpdesk/kit';
import type { AddressInfo } from 'node:net';
import { startEmbeddedMongo } from '@helpdesk/mongo-embedded';
import { buildApp } from '../src/app';
import { startTicketing, type RunningTicketing } from '../src/index';
import { createBus, type EventBus } from '../src/outbox';
import { FakeCustomers } from './fake-customers';

export const SECRET = 'test-secret-test-secret-test-secret-0123';
export const TEAM_A = randomUUID();
export const TEAM_B = randomUUID();
export const tokens = new InternalTokens(SECRET);
export const logger = createLogger('ticketing-test', 'silent');

export interface Caller {
  teamId?: string;
  mode?: 'test' | 'live';
  keyType?: InternalClaims['keyType'];
  permissions?: Permission[];
  memberId?: string | null;
}

export interface Reply {
  status: number;
  body: any;
  headers: Headers;
  requestId: string;
}

let seq = 0;

/** Calls the service as the gateway would: path `/teams/{teamId}/…` plus an internal token. */
export async function call(
  base: string,
  method: string,
  path: string,
  opts: { as?: Caller | null; body?: unknown; rawBody?: string; token?: string } = {},
): Promise<Reply> {
  const as = opts.as === undefined ? {} : opts.as;
  const requestId = `req_t${++seq}_${Math.random().toString(36).slice(2, 10)}`;
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (opts.token !== undefined) headers['x-internal-token'] = opts.token;
  else if (as) {
    headers['x-internal-token'] = await tokens.sign({
      teamId: as.teamId ?? TEAM_A,
      mode: as.mode ?? 'test',
      keyId: 'key_testkey0001',
      keyType: as.keyType ?? 'secret',
      memberId: as.memberId === undefined ? 'mem_member000001' : as.memberId,
      permissions: as.permissions ?? [...PERMISSIONS],
      requestId,
    });
  }
  const teamId = as?.teamId ?? TEAM_A;
  const url = base + path.replace('{team}', teamId);
  const res = await fetch(url, {
    method,
    headers,
    body: opts.rawBody ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body)),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null, headers: res.headers, requestId };
}

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
