import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import type mongoose from 'mongoose';
import { z } from 'zod';
import type { EventBus } from './bus';
import { createBus } from './bus';
import { loadConfig, serviceEnvSchema } from './config';
import { closeServer, listen } from './http';
import { InternalTokens } from './internal-token';
import { createLogger, type Logger } from './logger';
import { connectMongo } from './mongo';
import { startOutboxRelay, type OutboxRelay } from './outbox';
import { onShutdown } from './shutdown';

/** What every service's `start…` function takes. */
export interface ServiceOptions {
  mongoUrl: string;
  /** Default: the service's name. */
  dbName?: string;
  bus: EventBus;
  tokens: InternalTokens;
  logger: Logger;
  /** Default 0 (any free port). */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
}

export interface RunningService {
  /** `http://host:port` */
  url: string;
  conn: mongoose.Connection;
  relay: OutboxRelay;
  /** Stops taking requests, then the service's own workers, the relay and the connection. The bus is the caller's. */
  stop(): Promise<void>;
}

/** A part a service runs beside its HTTP server (a delivery worker, a timer): stopped before the relay. */
export interface ServiceWorker {
  stop(): Promise<void>;
}

export interface ServiceDefinition {
  /** The service's name: its default database and its bus queue (`helpdesk.<name>`). */
  name: string;
  /** Builds the models' indexes (before the service takes a request or an event). */
  init(conn: mongoose.Connection): Promise<unknown>;
  /** Subscribes the service's consumers (its `consumers/index.ts` list). */
  subscribe?(bus: EventBus, conn: mongoose.Connection): Promise<void>;
  /** The express app (no I/O at build time). */
  app(conn: mongoose.Connection): Express;
  /** Started after the consumers, before listening. */
  workers?(conn: mongoose.Connection): Promise<ServiceWorker[]> | ServiceWorker[];
}

/**
 * The one start-up every service shares: connect to its own database, build indexes, start the
 * outbox relay, subscribe the consumers, start workers, listen. Failure part-way undoes what started.
 */
export async function startService(def: ServiceDefinition, opts: ServiceOptions): Promise<RunningService> {
  const { logger } = opts;
  const conn = await connectMongo(opts.mongoUrl, opts.dbName ?? def.name);
  let relay: OutboxRelay | undefined;
  const workers: ServiceWorker[] = [];
  const stopWorkers = async () => {
    for (const w of workers.splice(0).reverse()) await w.stop();
  };
  try {
    await def.init(conn);
    relay = startOutboxRelay({ conn, bus: opts.bus, logger });
    await def.subscribe?.(opts.bus, conn);
    workers.push(...((await def.workers?.(conn)) ?? []));
    const host = opts.host ?? '127.0.0.1';
    const server = await listen(def.app(conn), opts.port ?? 0, host);
    const { port } = server.address() as AddressInfo;
    const started = relay;
    let stopping: Promise<void> | null = null;
    return {
      url: `http://${host}:${port}`,
      conn,
      relay: started,
      stop() {
        stopping ??= (async () => {
          await closeServer(server);
          await stopWorkers();
          await started.stop();
          await conn.close();
        })();
        return stopping;
      },
    };
  } catch (err) {
    await stopWorkers().catch(() => {});
    await relay?.stop();
    await conn.close();
    throw err;
  }
}

/**
 * A service's standalone process (`services/<name>/src/main.ts`): parses its environment once
 * (`MONGO_URL` required here, plus the service's own variables), starts it on `PORT` on every
 * interface, and stops it on SIGINT/SIGTERM (the service first, then the bus).
 */
export function runServiceMain<S extends z.ZodObject<any>>(
  name: string,
  extraEnv: S,
  start: (opts: ServiceOptions, env: z.infer<typeof serviceEnvSchema> & z.infer<S> & { MONGO_URL: string }) => Promise<RunningService>,
): void {
  const schema = serviceEnvSchema.extend({ MONGO_URL: z.string().url() }).extend(extraEnv.shape);
  (async () => {
    const env = loadConfig(schema) as z.infer<typeof serviceEnvSchema> & z.infer<S> & { MONGO_URL: string };
    const logger = createLogger(name, env.LOG_LEVEL);
    const bus = createBus({ amqpUrl: env.AMQP_URL, logger });
    const running = await start(
      { mongoUrl: env.MONGO_URL, bus, tokens: new InternalTokens(env.INTERNAL_TOKEN_SECRET), logger, port: env.PORT, host: '0.0.0.0' },
      env,
    );
    // Closed in reverse order: the service (HTTP, workers, relay, database) first, then the bus.
    onShutdown(logger, [
      { name: 'bus', close: () => bus.close() },
      { name, close: () => running.stop() },
    ]);
    logger.info({ url: running.url }, `${name} listening`);
  })().catch((err) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
