import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import type mongoose from 'mongoose';
import { z } from 'zod';
import type { Operations } from '@helpdesk/contracts';
import type { EventBus } from './bus';
import { createBus } from './bus';
import { describingOnly, loadConfig, mongoDbName, processSchemas, serviceEnvSchema, standaloneServiceSchema } from './config';
import { closeServer, createBootApp, createServiceApp, listen, type ReadinessChecks } from './http';
import { inProcessServices } from './in-process';
import { startMetricsServer } from './metrics';
import { useErrorDocsUrl } from './errors';
import { InternalTokens } from './internal-token';
import { createLogger, type Logger } from './logger';
import { declaredModels, recordDeclaration, type DataLayer } from './data-layer';
import { connectMongo } from './mongo';
import { mountOperations, type Handlers } from './operations';
import { idempotentRequestModel, resealIdempotentRecords, startOutboxRelay, type OutboxRelay } from './outbox';
import type { SecretBox } from './secrets';
import { onShutdown } from './shutdown';
import { useTransactionLogger } from './transaction';
import type { BrokerAccessRefused } from './bus';
import { subscribeAll, type Subscription } from './subscriptions';
import { ensureTelemetry, shutdownTelemetry } from './telemetry/state';
import { withoutTracing } from './telemetry/propagation';

/**
 * The one service skeleton. A service is a definition (its `src/service.ts`):
 *
 *   defineService({
 *     name: 'ticketing',
 *     operations: TICKETING,                      // its part of the API manifest
 *     models: (conn) => ({ tickets: teamAndPartition(ticketModel(conn)), … }),   // collections.ts: every collection, declared (data-layer.ts)
 *     rules: ({ conn, models, logger }) => ({ … }),  // rules.ts: the use cases' shared dependencies, built once
 *     handlers: (rules) => ({ ...ticketHandlers(rules), … }),   // every operation id, or tsc fails
 *     consumers: (rules) => [on('customer.created', …), …],     // consumers/index.ts
 *     workers: (rules, deps) => [ … ],
 *   })
 *
 * and kit does the rest: the app (health, internal token, JSON, handlers by operation id, errors),
 * the models' indexes, the outbox relay, the subscriptions, the workers, listening and stopping.
 */

/** What a service's parts are built from (no I/O happens while building them). */
export interface ServiceDeps<M> {
  conn: mongoose.Connection;
  models: M;
  logger: Logger;
  /**
   * True when this process is the service's only instance (its bus is process-local: the
   * one-process platform, tests): per-process lookup caches are then exact (kit LookupCache,
   * docs/adr/0045). False or absent with a broker, where replicas share the database.
   */
  soleInstance?: boolean;
  /** The key of secrets at rest (SECRETS_KEY, docs/adr/0067), when the process was given one. */
  secrets?: SecretBox;
}

/** A part a service runs beside its HTTP server (a delivery worker, a timer): stopped before the relay. */
export interface ServiceWorker {
  stop(): Promise<void>;
}

export interface ServiceDefinition<Ops extends Operations = Operations, M extends DataLayer = any, R = any> {
  /** The service's name: its default database and its bus queue (`helpdesk.<name>`). */
  name: string;
  /** The operations it answers: its manifest file (and its internal manifest). */
  operations: Ops;
  /**
   * Its collections on its connection, each declared team-and-partition, team-wide or platform-wide
   * (kit's data layer, docs/adr/0065); their indexes are built before it takes a request or an event.
   */
  models(conn: mongoose.Connection): M;
  /** Its rules (the resources' services), shared by handlers, consumers and workers. */
  rules(deps: ServiceDeps<M>): R;
  /** A handler for every operation. */
  handlers(rules: R, deps: ServiceDeps<M>): Handlers<Ops>;
  /** What it reacts to: the typed subscription list of its `consumers/index.ts`. */
  consumers?(rules: R, deps: ServiceDeps<M>): Subscription[];
  /**
   * Events in flight to its consumers at once (the bus's prefetch; 32 by default). A consumer that
   * applies events in micro-batches (kit's microBatches) gets batches of at most this many.
   */
  prefetch?: number;
  /** Started after the consumers, before listening. */
  workers?(rules: R, deps: ServiceDeps<M>): ServiceWorker[];
}

/** Declares a service (keeps the operation ids, models and rules typed). */
export const defineService = <Ops extends Operations, M extends DataLayer, R>(
  def: ServiceDefinition<Ops, M, R>,
): ServiceDefinition<Ops, M, R> => def;

/** A service built on a connection: its app, models and rules (nothing listens, nothing is subscribed). */
export interface BuiltService<M = any, R = any> {
  app: Express;
  deps: ServiceDeps<M>;
  rules: R;
}

export function buildService<Ops extends Operations, M extends DataLayer, R>(
  def: ServiceDefinition<Ops, M, R>,
  opts: { conn: mongoose.Connection; tokens: InternalTokens; logger: Logger; bus?: EventBus; secrets?: SecretBox },
): BuiltService<M, R> {
  const deps: ServiceDeps<M> = { conn: opts.conn, models: def.models(opts.conn), logger: opts.logger, soleInstance: opts.bus?.processLocal === true, secrets: opts.secrets };
  const rules = def.rules(deps);
  const handlers = def.handlers(rules, deps);
  const app = createServiceApp({
    name: def.name,
    logger: opts.logger,
    tokens: opts.tokens,
    // Readiness names what it cannot serve without: its database and its broker channel.
    checks: dependencyChecks(() => opts.conn, opts.bus),
    // An operation may take a larger body than the default (an upload): the largest one declared.
    bodyLimit: bodyLimitOf(def.operations),
    routes: (a) => mountOperations(a, def.operations, handlers, { conn: opts.conn, secrets: opts.secrets }),
  });
  return { app, deps, rules };
}

/** `mongodb` (the connection is open) and, on a bus that says, `broker` (its channel is up). */
function dependencyChecks(conn: () => mongoose.Connection | undefined, bus: EventBus | undefined): ReadinessChecks {
  return {
    mongodb: () => conn()?.readyState === 1,
    ...(bus?.ready ? { broker: () => bus.ready!() } : {}),
  };
}

function bodyLimitOf(ops: Operations): string | undefined {
  const largest = Math.max(0, ...Object.values(ops).map((op) => op.bodyLimitBytes ?? 0));
  return largest > 0 ? `${largest}b` : undefined;
}

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
  /**
   * Also answer callers in this process without a socket (docs/adr/0046): the gateway and other
   * services' internal clients hand requests to its URL straight to its app. The one-process
   * platform sets it; a service alone in its process has no caller there to reach it.
   */
  inProcess?: boolean;
  /**
   * The key of secrets at rest (SECRETS_KEY, docs/adr/0067): the service seals what its
   * Idempotency-Key records keep with it, and a service that keeps secrets of its own (webhooks)
   * cannot start without it.
   */
  secrets?: SecretBox;
}

export interface RunningService<R = any> {
  /** `http://host:port` */
  url: string;
  conn: mongoose.Connection;
  relay: OutboxRelay;
  /** The service's rules (tests and the local platform reach its internals through them). */
  rules: R;
  /** Its declared collections (kit's data layer; the census test reads them). */
  models: DataLayer;
  /** Stops taking requests, then the service's own workers, the relay and the connection. The bus is the caller's. */
  stop(): Promise<void>;
}

/**
 * The one start-up every service shares: open its HTTP port (`/healthz` 200, `/readyz` 503 naming
 * what start-up still waits for: `mongodb`, `broker`, `startup`), connect to its own database, build
 * its models' indexes, start the outbox relay, subscribe the consumers (which waits for the broker),
 * start workers, then hand the port to the service's app. Failure part-way undoes what started.
 */
export async function startService<Ops extends Operations, M extends DataLayer, R>(
  def: ServiceDefinition<Ops, M, R>,
  opts: ServiceOptions,
): Promise<RunningService<R>> {
  const { logger } = opts;
  let conn: mongoose.Connection | undefined;
  let relay: OutboxRelay | undefined;
  const workers: ServiceWorker[] = [];
  const stopWorkers = async () => {
    for (const w of workers.splice(0).reverse()) await withoutTracing(() => w.stop());
  };
  // The port answers from the start: a probe sees the process alive and what it waits for.
  let app: Express = createBootApp(def.name, { ...dependencyChecks(() => conn, opts.bus), startup: () => false });
  const host = opts.host ?? '127.0.0.1';
  const server = await listen((req: IncomingMessage, res: ServerResponse) => app(req, res), opts.port ?? 0, host);
  const { port } = server.address() as AddressInfo;
  const url = `http://${host}:${port}`;
  logger.info({ httpUrl: url }, `${def.name}: health checks answering; starting`);
  try {
    conn = await connectMongo(opts.mongoUrl, opts.dbName ?? def.name);
    useTransactionLogger(conn, logger);
    const built = buildService(def, { conn, tokens: opts.tokens, logger, bus: opts.bus, secrets: opts.secrets });
    await Promise.all([...declaredModels(built.deps.models), idempotentRequestModel(conn)].map((m) => m.init()));
    recordDeclaration(conn, built.deps.models);
    if (opts.secrets) {
      // Idempotency records kept in the clear before the service had a key are sealed (docs/adr/0067): a day's worth at most.
      const { sealed } = await resealIdempotentRecords(conn, opts.secrets, { rotate: false });
      if (sealed) logger.info({ sealed }, `${def.name}: idempotency records stored in the clear are now encrypted at rest`);
    }
    // Every commit through withOutbox wakes the relay; its idle poll only backs that up (docs/adr/0070).
    relay = startOutboxRelay({ conn, bus: opts.bus, logger, service: def.name });
    await subscribeAll(opts.bus, def.name, def.consumers?.(built.rules, built.deps) ?? [], { prefetch: def.prefetch });
    // Workers poll whether or not anything happens: their loops run untraced (no idle traces). What
    // they emit is traced from its publish on (the relay's producer span starts a trace).
    workers.push(...(withoutTracing(() => def.workers?.(built.rules, built.deps)) ?? []));
    app = built.app;
    const local = opts.inProcess ? inProcessServices.register(url, built.app) : null;
    const started = relay;
    const db = conn;
    let stopping: Promise<void> | null = null;
    return {
      url,
      conn: db,
      relay: started,
      rules: built.rules,
      models: built.deps.models,
      stop() {
        stopping ??= (async () => {
          // In-process callers go back to the URL (refused from now on); requests under way finish first.
          await Promise.all([local?.close(), closeServer(server)]);
          await stopWorkers();
          await started.stop();
          await db.close();
        })();
        return stopping;
      },
    };
  } catch (err) {
    await closeServer(server);
    await stopWorkers().catch(() => {});
    await relay?.stop();
    await conn?.close();
    throw err;
  }
}

/**
 * A service's standalone process (`services/<name>/src/main.ts`): parses its environment once
 * (`MONGO_URL` and `AMQP_URL` required unless HELPDESK_EMBEDDED=1, plus the service's own variables),
 * starts it on `PORT` on every interface with its metrics on `METRICS_PORT`, and stops it on
 * SIGINT/SIGTERM (the service first, then the bus). Its schema is the variables table in docs/configuration.md.
 * `requiredUnlessEmbedded`: its own variables that production cannot do without (see standaloneServiceSchema).
 */
export function runServiceMain<S extends z.ZodObject<any>>(
  name: string,
  extraEnv: S,
  start: (opts: ServiceOptions, env: z.infer<typeof serviceEnvSchema> & z.infer<S> & { MONGO_URL: string }) => Promise<RunningService>,
  requiredUnlessEmbedded: Record<string, string> = {},
): void {
  const schema = standaloneServiceSchema(extraEnv, requiredUnlessEmbedded);
  processSchemas.set(name, schema);
  if (describingOnly()) return;
  let stopAll: (() => Promise<void>) | null = null;
  let exiting = false;
  /** The broker refused AMQP_URL's credentials or permissions (the bus logged it): stop what runs, exit 1. */
  const fatal = (_err: BrokerAccessRefused) => {
    if (exiting) return;
    exiting = true;
    void (stopAll?.() ?? Promise.resolve()).finally(() => process.exit(1));
  };
  (async () => {
    const env = loadConfig(schema) as z.infer<typeof serviceEnvSchema> & z.infer<S> & { MONGO_URL: string };
    const logger = createLogger(name, env.LOG_LEVEL);
    // Tracing wherever OTEL_EXPORTER_OTLP_ENDPOINT is set: on since the entry file's first import, or
    // started now with a warning, or a warning naming why it could not start.
    ensureTelemetry(name, logger);
    useErrorDocsUrl(env.ERROR_DOCS_URL);
    if (!env.AMQP_URL) logger.warn('HELPDESK_EMBEDDED=1 and no AMQP_URL: the in-process bus; events reach no other process');
    const bus = createBus({ amqpUrl: env.AMQP_URL, exchange: env.AMQP_EXCHANGE, queuePrefix: env.AMQP_QUEUE_PREFIX, logger, onFatal: fatal });
    const metrics = await startMetricsServer(env.METRICS_PORT, env.HOST);
    // Its HTTP port opens first (health checks while MongoDB and the broker connect, startService).
    const running = await start(
      {
        mongoUrl: env.MONGO_URL,
        dbName: mongoDbName(env.MONGO_URL, env.MONGO_DB, name),
        bus,
        tokens: new InternalTokens(env.INTERNAL_TOKEN_SECRET),
        logger,
        port: env.PORT,
        host: env.HOST,
      },
      env,
    );
    // Closed in reverse order: the service (HTTP, workers, relay, database) first, then the bus.
    stopAll = onShutdown(logger, [
      { name: 'telemetry', close: () => shutdownTelemetry() },
      { name: 'metrics', close: () => metrics.stop() },
      { name: 'bus', close: () => bus.close() },
      { name, close: () => running.stop() },
    ]);
    logger.info({ url: running.url, metrics: metrics.url }, `${name} listening`);
  })().catch((err) => {
    if (exiting) return; // the refusal was logged; the exit is under way
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
