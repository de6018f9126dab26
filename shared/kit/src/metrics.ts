import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * The process's Prometheus metrics (docs/adr/0038). One registry per process: in `npm start` and
 * the tests every service shares it, so every series carries a `service` (or `queue`) label.
 * Served by `startMetricsServer` on its own port (METRICS_PORT), never through the gateway.
 *
 * Each process exports only its own families: every family below is declared here (one name, one
 * meaning) but joins the registry the first time the process uses it (`lazily`), so the gateway
 * never exports webhook deliveries and a service never exports the gateway's request counters.
 */
export const metricsRegistry = new Registry();
let processMetrics = false;

/** Families join the registry when first used (see `lazily`), never at declaration. */
const registers: Registry[] = [];

/** Every family the kit declares, used here or not (what dashboards and alert rules may read). */
const declared: string[] = [];
export const declaredMetricNames = (): readonly string[] => declared;

/** `metric`, registered in the process's registry at its first use (any method: inc, observe, set, labels…). */
function lazily<M extends object>(metric: M): M {
  declared.push((metric as unknown as { name: string }).name);
  let registered = false;
  const ensure = () => {
    if (registered) return;
    registered = true;
    const name = (metric as unknown as { name: string }).name;
    if (!metricsRegistry.getSingleMetric(name)) metricsRegistry.registerMetric(metric as never);
  };
  return new Proxy(metric, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target) as unknown;
      if (typeof value !== 'function' || prop === 'constructor') return value;
      return (...args: unknown[]) => {
        ensure();
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

/** Gateway: every answered request, by operation id (`unmatched` outside the manifest) and status. */
export const requestsTotal = lazily(new Counter({
  name: 'helpdesk_gateway_requests_total',
  help: 'Requests answered by the gateway, by operation id and HTTP status.',
  labelNames: ['operation', 'status'] as const,
  registers,
}));
export const requestDuration = lazily(new Histogram({
  name: 'helpdesk_gateway_request_duration_seconds',
  help: 'Time from the request to the end of the answer, by operation id and HTTP status.',
  labelNames: ['operation', 'status'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers,
}));
/** `allowed` or `limited` (429). */
export const rateLimitDecisions = lazily(new Counter({
  name: 'helpdesk_gateway_rate_limit_decisions_total',
  help: 'Rate-limit decisions of the gateway (allowed, limited).',
  labelNames: ['outcome'] as const,
  registers,
}));
/** `claimed` (first use), `replayed`, `conflict` (other request), `in_progress`. */
export const idempotencyOutcomes = lazily(new Counter({
  name: 'helpdesk_gateway_idempotency_outcomes_total',
  help: 'Idempotency-Key outcomes (claimed, replayed, conflict, in_progress).',
  labelNames: ['outcome'] as const,
  registers,
}));
/** A service unreachable behind the gateway (its routes answer 503 service_unavailable). */
export const upstreamUnavailable = lazily(new Counter({
  name: 'helpdesk_gateway_upstream_unavailable_total',
  help: 'Requests answered 503 because the service behind the route did not answer.',
  labelNames: ['service'] as const,
  registers,
}));
/** Open event streams (SSE); the stream step increments on open, decrements on close. */
export const sseStreamsOpen = lazily(new Gauge({
  name: 'helpdesk_gateway_sse_streams_open',
  help: 'Server-sent event streams currently open.',
  registers,
}));

/** Consumers: each delivery's outcome per queue (`acked`, `retried`, `dead_lettered`). */
export const consumerDeliveries = lazily(new Counter({
  name: 'helpdesk_consumer_deliveries_total',
  help: 'Event deliveries handled by consumers, by queue and outcome (acked, retried, dead_lettered).',
  labelNames: ['queue', 'outcome'] as const,
  registers,
}));
export const consumerRedeliveries = lazily(new Counter({
  name: 'helpdesk_consumer_redeliveries_total',
  help: 'Deliveries that were a retry or a broker redelivery, by queue.',
  labelNames: ['queue'] as const,
  registers,
}));

/** Transactions run again after a transient error (a write conflict, a primary stepping down), by database. */
export const transactionRetries = lazily(new Counter({
  name: 'helpdesk_transaction_retries_total',
  help: 'Transactions retried after a transient error (TransientTransactionError), by service database.',
  labelNames: ['service'] as const,
  registers,
}));

/** Consumer transactions that stopped retrying at their bound (their event went back to the broker). */
export const transactionGaveUp = lazily(new Counter({
  name: 'helpdesk_transaction_gave_up_total',
  help: 'Consumer transactions that gave up retrying transient errors at their bound (the event is retried later from the broker), by service database.',
  labelNames: ['service'] as const,
  registers,
}));

/** Webhook delivery attempts: `succeeded`, `retrying` (another attempt is scheduled), `failed` (no more). */
export const webhookDeliveries = lazily(new Counter({
  name: 'helpdesk_webhook_deliveries_total',
  help: 'Webhook delivery attempts by outcome (succeeded, retrying, failed).',
  labelNames: ['outcome'] as const,
  registers,
}));
export const webhookDeliveryDuration = lazily(new Histogram({
  name: 'helpdesk_webhook_delivery_duration_seconds',
  help: 'Duration of one webhook delivery attempt.',
  buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15],
  registers,
}));

/**
 * Services: every answered operation, by service, operation id and status (`mountOperations`). Health
 * probes are not operations: never counted here.
 */
export const serviceRequestDuration = lazily(new Histogram({
  name: 'helpdesk_service_request_duration_seconds',
  help: 'Time a service takes to answer one operation, by service, operation id and HTTP status (probes not counted).',
  labelNames: ['service', 'operation', 'status'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers,
}));

/** Consumers: how long one delivery's handling took, by queue, event type and outcome (`acked`, `retried`, `dead_lettered`). */
export const consumerProcessingDuration = lazily(new Histogram({
  name: 'helpdesk_consumer_processing_seconds',
  help: 'Time a consumer took to handle one delivery, by queue, event type and outcome (acked, retried, dead_lettered).',
  labelNames: ['queue', 'type', 'outcome'] as const,
  buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  registers,
}));

/** What a gauge sampled at scrape time reads: label values → value. */
export type GaugeSample = Array<{ labels: Record<string, string>; value: number }>;

/**
 * A gauge read at scrape time from live sources (outbox backlogs, queue depths, embedded stores).
 * Sources register with `add` and unregister with the returned function when their part stops.
 */
function sampledGauge(name: string, help: string, labelNames: string[]) {
  const sources = new Set<() => Promise<GaugeSample> | GaugeSample>();
  // Registered with its first source: a process without outbox (the gateway) has no outbox family.
  const gauge = lazily(new Gauge({
    name,
    help,
    labelNames,
    registers,
    async collect() {
      this.reset();
      const samples = await Promise.all([...sources].map((s) => Promise.resolve().then(s).catch(() => [] as GaugeSample)));
      for (const sample of samples) for (const { labels, value } of sample) this.set(labels, value);
    },
  }));
  return {
    add(source: () => Promise<GaugeSample> | GaugeSample): () => void {
      gauge.reset(); // its first use: the family joins the registry (values are read at each scrape anyway)
      sources.add(source);
      return () => sources.delete(source);
    },
  };
}

export const outboxBacklog = sampledGauge('helpdesk_outbox_backlog', 'Outbox events not yet published, by service.', ['service']);
export const outboxOldestAge = sampledGauge(
  'helpdesk_outbox_oldest_unpublished_age_seconds',
  'Age of the oldest unpublished outbox event (0 when none), by service.',
  ['service'],
);
/** Messages waiting in a service's queue (consumer lag) and in its dead-letter queue. */
export const queueDepth = sampledGauge('helpdesk_queue_messages', 'Messages waiting in a queue, by queue and kind (ready, dead).', ['queue', 'kind']);
/** `npm start` / tests: the in-process stand-ins (memory bus queues, in-memory gateway stores). */
export const embeddedStoreEntries = sampledGauge('helpdesk_embedded_store_entries', 'Entries held by in-process stand-ins (local runs only).', ['store']);
/** The embedded MongoDB's work since it started (docs examined, index scans, collection scans, commands). */
export const embeddedMongoStats = sampledGauge('helpdesk_embedded_mongo_stats', 'Cumulative work of the embedded MongoDB (local runs only), by kind.', ['stat']);

/** Prometheus text of every metric of this process. */
export function metricsText(): Promise<string> {
  return metricsRegistry.metrics();
}

export interface MetricsServer {
  url: string;
  stop(): Promise<void>;
}

const EVENT_LOOP_SAMPLE_MS = 100;

/** Serves `GET /metrics` on its own port (METRICS_PORT), apart from the API. */
export async function startMetricsServer(port: number, host = '0.0.0.0'): Promise<MetricsServer> {
  // The process's own figures (CPU, memory, event loop) only where a scraper reads them. The event
  // loop's delay is sampled every 100 ms, not prom-client's 10 ms: at 10 ms the sampling timer alone
  // cost an idle process 0.24 % of a core (docs/adr/0070); a stall still shows in full.
  if (!processMetrics) collectDefaultMetrics({ register: metricsRegistry, prefix: 'helpdesk_', eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
  processMetrics = true;
  const server: Server = createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
      res.statusCode = 404;
      res.end('not found\n');
      return;
    }
    metricsText().then(
      (text) => {
        res.setHeader('content-type', metricsRegistry.contentType);
        res.end(text);
      },
      (err: Error) => {
        res.statusCode = 500;
        res.end(`metrics failed: ${err.message}\n`);
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const { port: bound } = server.address() as AddressInfo;
  const urlHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  return {
    url: `http://${urlHost}:${bound}/metrics`,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
