import { randomUUID } from 'node:crypto';
import mongoose from 'mongoose';
import type { AddressInfo } from 'node:net';
import type { EventEnvelope } from '@helpdesk/contracts';
import { closeServer, createBus, createLogger, InternalTokens, listen, newId, type EventBus } from '@helpdesk/kit';
import { startEmbeddedMongo } from '@helpdesk/mongo-embedded';
import { buildApp } from '../src/app';
import { startWebhooks, type RunningWebhooks, type WebhookSettings } from '../src/index';
// Deep import: @helpdesk/testing's index also loads the whole platform, which a service test does not need.
import { serviceCaller, TEST_INTERNAL_SECRET, type Caller, type Reply } from '@helpdesk/testing/src/service';

export const SECRET = TEST_INTERNAL_SECRET;
export const TEAM_A = randomUUID();
export const TEAM_B = randomUUID();
export const tokens = new InternalTokens(SECRET);
export const logger = createLogger('webhooks-test', 'silent');

export type { Caller, Reply };
/** Calls the service as the gateway would: a path (`{team}` = the caller's team) plus an internal token. */
export const call = serviceCaller(tokens, TEAM_A);

/** The app with no database behind it: enough for everything refused before the first query. */
export async function startDetached(): Promise<{ url: string; stop: () => Promise<void> }> {
  const conn = mongoose.createConnection();
  const server = await listen(buildApp({ conn, tokens, logger }), 0, '127.0.0.1');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    stop: async () => {
      await closeServer(server);
      await conn.close();
    },
  };
}

/** A valid `ticket.created` envelope (what the ticketing service publishes). */
export function ticketCreated(opts: { teamId?: string; mode?: 'test' | 'live'; title?: string; requestId?: string | null } = {}): EventEnvelope {
  const now = new Date().toISOString();
  return {
    id: newId('event'),
    type: 'ticket.created',
    version: 1,
    teamId: opts.teamId ?? TEAM_A,
    mode: opts.mode ?? 'test',
    occurredAt: now,
    requestId: opts.requestId === undefined ? `req_${Math.random().toString(36).slice(2, 12)}` : opts.requestId,
    actor: { type: 'key', id: 'key_testkey0001' },
    data: {
      ticket: {
        id: newId('ticket'), title: opts.title ?? 'Printer on fire', status: 'new', priority: 'normal', customerId: null, assignedTo: null,
        tags: [], notes: null, messageCount: 0, metadata: {}, channel: 'api', createdAt: now, updatedAt: now, resolvedAt: null, closedAt: null,
      },
    },
  };
}

export interface Harness {
  svc: RunningWebhooks;
  bus: EventBus;
  url: string;
  /** Every webhook.* event the service published. */
  events: EventEnvelope<any>[];
  api(method: string, path: string, opts?: { as?: Caller | null; body?: unknown }): Promise<Reply>;
  /** Creates a webhook (201 expected) and returns the answer's data, secret included. */
  createWebhook(body: Record<string, unknown>, as?: Caller): Promise<any>;
  publish(...events: EventEnvelope[]): Promise<void>;
  /** Waits for the outbox to drain, then returns the webhook.* events of one request. */
  eventsOf(requestId: string): Promise<EventEnvelope<any>[]>;
  stop(): Promise<void>;
}

/** The real service (worker included) on the embedded MongoDB and kit's memory bus. */
export async function startHarness(settings: Partial<WebhookSettings> = {}): Promise<Harness> {
  const m = await startEmbeddedMongo();
  const bus = createBus({ logger });
  const events: EventEnvelope<any>[] = [];
  await bus.subscribe('webhooks-test-observer', ['webhook.#'], async (e) => {
    events.push(e);
  });
  const svc = await startWebhooks({ mongoUrl: m.uri(), bus, tokens, logger, settings: { allowLoopback: true, ...settings } });
  const api: Harness['api'] = (method, path, opts = {}) => call(svc.url, method, path, opts);
  return {
    svc,
    bus,
    url: svc.url,
    events,
    api,
    async createWebhook(body, as) {
      const r = await api('POST', '/teams/{team}/webhooks', { body, as });
      if (r.status !== 201) throw new Error(`create webhook: ${r.status} ${JSON.stringify(r.body)}`);
      return r.body.data;
    },
    publish: (...e) => bus.publish(e),
    async eventsOf(requestId) {
      await svc.relay.drain(5_000);
      await new Promise((r) => setTimeout(r, 20));
      return events.filter((e) => e.requestId === requestId);
    },
    async stop() {
      await svc.stop();
      await bus.close();
      await m.close();
    },
  };
}
