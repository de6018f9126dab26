import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import mongoose from 'mongoose';
import type { EventEnvelope, Operations } from '@helpdesk/contracts';
import {
  buildService,
  closeServer,
  createLogger,
  InternalTokens,
  listen,
  MemoryBus,
  newSecretsKey,
  SecretBox,
  type RunningService,
  type ServiceDefinition,
  type ServiceOptions,
} from '@helpdesk/kit';
import { startEmbeddedMongo } from '@helpdesk/mongo-embedded';
import { serviceCaller, TEST_INTERNAL_SECRET, type CallOptions, type Reply } from './service';

/**
 * The one service-level harness every service's tests use: the real service on the embedded
 * MongoDB-compatible server and kit's memory bus (which serialises and validates every event as
 * RabbitMQ would), called as the gateway calls it.
 */
export const tokens = new InternalTokens(TEST_INTERNAL_SECRET);
export const logger = createLogger('service-test', 'silent');
/** The key of secrets at rest every harnessed service gets (docs/adr/0067): a fresh one per test file. */
export const testSecrets = new SecretBox(newSecretsKey());
/** Two teams per test file: isolation tests use the second. */
export const TEAM_A = randomUUID();
export const TEAM_B = randomUUID();
/** Calls a service as the gateway would: a path (`{team}` = the caller's team) plus an internal token. */
export const call = serviceCaller(tokens, TEAM_A);

/** Asserts the error body's status, code and param. */
export function expectError(r: { status: number; body: any }, status: number, code: string, param?: string): void {
  expect({ status: r.status, code: r.body?.error?.code, param: r.body?.error?.param }).toEqual({ status, code, param });
  expect(r.body.success).toBe(false);
}

export interface ServiceHarness<R = any> {
  svc: RunningService<R>;
  bus: MemoryBus;
  url: string;
  /** Every event the service published that matches the harness's `observe` patterns. */
  events: EventEnvelope<any>[];
  /** Calls the service (`{team}` = the caller's team). */
  api(method: string, path: string, opts?: CallOptions): Promise<Reply>;
  /** The observed events of one request (after the outbox has drained). */
  eventsOf(requestId: string): Promise<EventEnvelope<any>[]>;
  /** Publishes events as other services would and waits until they are handled and what they emitted is out. */
  publish(...events: EventEnvelope<any>[]): Promise<void>;
  stop(): Promise<void>;
}

export interface HarnessOptions {
  /** Topic patterns of the service's own events to record in `events`. */
  observe: string[];
}

/** Starts a service with `start` (its `start…` function, given everything but the bus and database). */
export async function startServiceHarness<R>(
  start: (opts: ServiceOptions) => Promise<RunningService<R>>,
  opts: HarnessOptions,
): Promise<ServiceHarness<R>> {
  const mongo = await startEmbeddedMongo();
  const bus = new MemoryBus(logger);
  const events: EventEnvelope<any>[] = [];
  await bus.subscribe('test-observer', opts.observe, async (e) => {
    events.push(e);
  });
  let svc: RunningService<R>;
  try {
    svc = await start({ mongoUrl: mongo.uri(), bus, tokens, logger, secrets: testSecrets });
  } catch (err) {
    await bus.close();
    await mongo.close();
    throw err;
  }
  const drained = async () => {
    await bus.idle();
    await svc.relay.drain(5_000);
    await bus.idle();
  };
  return {
    svc,
    bus,
    url: svc.url,
    events,
    api: (method, path, o) => call(svc.url, method, path, o),
    async eventsOf(requestId) {
      await drained();
      return events.filter((e) => e.requestId === requestId);
    },
    async publish(...published) {
      await bus.publish(published);
      await drained();
    },
    async stop() {
      await svc.stop();
      await bus.close();
      await mongo.close();
    },
  };
}

/** A service's app with no database behind it: enough for everything refused before the first query. */
export async function startDetached<Ops extends Operations>(def: ServiceDefinition<Ops>): Promise<{ url: string; stop: () => Promise<void> }> {
  const conn = mongoose.createConnection();
  const { app } = buildService(def, { conn, tokens, logger, secrets: testSecrets });
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
