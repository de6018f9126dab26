import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import mongoose from 'mongoose';
import {
  EVENT_CATALOG,
  type EventData,
  type EventEnvelope,
  type EventType,
  type MessageSnapshot,
  type TicketSnapshot,
} from '@helpdesk/contracts';
import { closeServer, createLogger, InternalTokens, listen, MemoryBus, newId } from '@helpdesk/kit';
import { startEmbeddedMongo } from '@helpdesk/mongo-embedded';
import { buildApp } from '../src/app';
import { startCustomers, type RunningCustomers } from '../src/index';
// Deep import: @helpdesk/testing's index also loads the whole platform, which a service test does not need.
import { serviceCaller, TEST_INTERNAL_SECRET, type Caller, type Reply } from '@helpdesk/testing/src/service';

export const SECRET = TEST_INTERNAL_SECRET;
export const TEAM_A = randomUUID();
export const TEAM_B = randomUUID();
export const tokens = new InternalTokens(SECRET);
export const logger = createLogger('customers-test', 'silent');

export type { Caller, Reply };
/** Calls the service as the gateway would: a path (`{team}` = the caller's team) plus an internal token. */
export const call = serviceCaller(tokens, TEAM_A);

export const expectError = (r: { status: number; body: any }, status: number, code: string, param?: string) => {
  expect({ status: r.status, code: r.body?.error?.code, param: r.body?.error?.param }).toEqual({ status, code, param });
  expect(r.body.success).toBe(false);
};

/** The app with no database behind it: enough for everything refused before the first query. */
export async function startDetached(): Promise<{ url: string; stop: () => Promise<void> }> {
  const conn = mongoose.createConnection();
  const app = buildApp({ conn, tokens, logger });
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

/** Polls (never a fixed sleep) until `check` returns a truthy value; returns it. */
export async function waitFor<T>(check: () => Promise<T> | T, what: string, timeoutMs = 5_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

export interface Harness {
  svc: RunningCustomers;
  bus: MemoryBus;
  url: string;
  events: EventEnvelope<any>[];
  /** Events published for one request (waits for the outbox relay to drain first). */
  eventsOf(requestId: string): Promise<EventEnvelope<any>[]>;
  /** Publishes a ticket event as ticketing would and waits until the customers consumer has handled it. */
  ticketEvent<T extends EventType>(type: T, data: EventData<T>, scope?: { teamId?: string; mode?: 'test' | 'live'; id?: string }): Promise<EventEnvelope>;
  stop(): Promise<void>;
}

/** The real service on the embedded MongoDB-compatible server and kit's memory bus. */
export async function startHarness(): Promise<Harness> {
  const m = await startEmbeddedMongo();
  const bus = new MemoryBus(logger);
  const events: EventEnvelope<any>[] = [];
  await bus.subscribe('customers-test', ['customer.#', 'customer_group.#', 'customer_status.#'], async (e) => {
    events.push(e);
  });
  const svc = await startCustomers({ mongoUrl: m.uri(), dbName: 'customers', bus, tokens, logger });
  return {
    svc,
    bus,
    url: svc.url,
    events,
    async eventsOf(requestId) {
      await svc.relay.drain(5_000);
      await new Promise((r) => setTimeout(r, 10));
      return events.filter((e) => e.requestId === requestId);
    },
    async ticketEvent(type, data, scope = {}) {
      const e = envelope(type, data, scope);
      await bus.publish([e]);
      // Handled (the memory bus is idle), then what the handler emitted is published and delivered.
      await bus.idle();
      await svc.relay.drain(5_000);
      await bus.idle();
      return e;
    },
    async stop() {
      await svc.stop();
      await bus.close();
      await m.close();
    },
  };
}

export function envelope<T extends EventType>(type: T, data: EventData<T>, scope: { teamId?: string; mode?: 'test' | 'live'; id?: string } = {}): EventEnvelope {
  return {
    id: scope.id ?? newId('event'),
    type,
    version: EVENT_CATALOG[type].version,
    teamId: scope.teamId ?? TEAM_A,
    mode: scope.mode ?? 'test',
    occurredAt: new Date().toISOString(),
    requestId: `req_ticket${Math.random().toString(36).slice(2, 10)}`,
    actor: { type: 'key', id: 'key_testkey0001' },
    data: data as Record<string, unknown>,
  };
}

/** A ticket snapshot as ticketing publishes it. */
export function ticket(customerId: string | null, fields: Partial<TicketSnapshot> = {}): TicketSnapshot {
  const now = new Date().toISOString();
  return {
    id: newId('ticket'), title: 'T', status: 'new', priority: 'normal', customerId, assignedTo: null, tags: [], notes: null,
    messageCount: 0, metadata: {}, channel: 'api', createdAt: now, updatedAt: now, resolvedAt: null, closedAt: null, ...fields,
  };
}

export function message(ticketId: string, content: string, fields: Partial<MessageSnapshot> = {}): MessageSnapshot {
  return { id: newId('message'), ticketId, content, sender: 'customer', senderName: null, isInternal: false, createdAt: new Date().toISOString(), ...fields };
}
