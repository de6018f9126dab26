import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { isInternalOrigin } from './internal-origins';

/** Health probes and metric scrapes: never traced (a probe every few seconds would be a trace each). */
export function isProbePath(url: string | undefined): boolean {
  const path = (url ?? '').split('?')[0];
  return path === '/healthz' || path === '/readyz' || path === '/metrics';
}

/** `http(s)://host:port` of node http.request options. */
function outgoingOrigin(req: { protocol?: string | null; hostname?: string | null; host?: string | null; port?: string | number | null }): string {
  const protocol = req.protocol || 'http:';
  const host = req.hostname || (req.host ?? '').split(':')[0] || 'localhost';
  const port = req.port ? `:${req.port}` : '';
  return `${protocol}//${host.includes(':') && !host.startsWith('[') ? `[${host}]` : host}${port}`;
}

export interface TelemetryOptions {
  serviceName: string;
  /** OTLP/HTTP collector base URL (OTEL_EXPORTER_OTLP_ENDPOINT), e.g. `http://collector:4318`. */
  endpoint?: string;
  /** Extra span processors (tests: `new SimpleSpanProcessor(new InMemorySpanExporter())`). */
  spanProcessors?: SpanProcessor[];
  /** Auto-instrumentation of express, http, undici, mongoose/mongodb, ioredis … (default true; fs, dns and amqplib off: the bus traces itself). */
  autoInstrumentations?: boolean;
}

export interface Telemetry {
  shutdown(): Promise<void>;
}

/**
 * Starts the OpenTelemetry Node SDK for this process: traces to the OTLP/HTTP exporter when `endpoint`
 * is set and/or to the given span processors; `null` (tracing off, the API stays a no-op) when neither.
 * The W3C trace-context propagator is registered, which the bus uses for its message headers.
 *
 * Auto-instrumentation patches modules when they are loaded: it must start BEFORE express, http,
 * mongoose or amqplib are required, i.e. from a preloaded file, not from `main.ts` after its imports:
 *
 *     node --require ./dist/…/telemetry/register.js …   (from sources: node --require tsx/cjs --require ./shared/kit/src/telemetry/register.ts …)
 *
 * (`register.ts` calls this with OTEL_SERVICE_NAME and OTEL_EXPORTER_OTLP_ENDPOINT.) Started later,
 * spans from modules already loaded are missing but manual spans (the bus's publish/process spans)
 * and header propagation still work.
 *
 * The SDK packages are loaded lazily so importing kit does not pay for them when tracing is off.
 */
export function startTelemetry(opts: TelemetryOptions): Telemetry | null {
  const processors: SpanProcessor[] = [...(opts.spanProcessors ?? [])];
  if (!opts.endpoint && processors.length === 0) return null;
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { NodeSDK } = require('@opentelemetry/sdk-node') as typeof import('@opentelemetry/sdk-node');
  const { BatchSpanProcessor } = require('@opentelemetry/sdk-trace-base') as typeof import('@opentelemetry/sdk-trace-base');
  if (opts.endpoint) {
    const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http');
    const url = `${opts.endpoint.replace(/\/+$/, '')}/v1/traces`;
    processors.push(new BatchSpanProcessor(new OTLPTraceExporter({ url })));
  }
  const instrumentations = [];
  if (opts.autoInstrumentations !== false) {
    const { getNodeAutoInstrumentations } = require('@opentelemetry/auto-instrumentations-node') as typeof import('@opentelemetry/auto-instrumentations-node');
    instrumentations.push(
      getNodeAutoInstrumentations({
        // Trace context never leaves the platform (internal-origins.ts): a request elsewhere is not
        // traced, so no traceparent goes out; health probes and scrapes make no traces.
        '@opentelemetry/instrumentation-http': {
          ignoreIncomingRequestHook: (req) => isProbePath(req.url),
          ignoreOutgoingRequestHook: (req) => !isInternalOrigin(outgoingOrigin(req)),
        },
        '@opentelemetry/instrumentation-undici': {
          ignoreRequestHook: (req) => !isInternalOrigin(String(req.origin)),
        },
        '@opentelemetry/instrumentation-fs': { enabled: false },
        // Socket connects (a database pool opening a connection) as root spans are noise, not requests.
        '@opentelemetry/instrumentation-net': { enabled: false },
        '@opentelemetry/instrumentation-dns': { enabled: false },
        // The bus makes its own PRODUCER/CONSUMER spans, parented on the context stored in the outbox
        // row (the request's), which the amqplib instrumentation cannot know: one pair, not two.
        '@opentelemetry/instrumentation-amqplib': { enabled: false },
      }),
    );
  }
  /* eslint-enable @typescript-eslint/no-require-imports */
  const sdk = new NodeSDK({ serviceName: opts.serviceName, spanProcessors: processors, instrumentations });
  sdk.start();
  let stopped: Promise<void> | null = null;
  return {
    shutdown: () => (stopped ??= sdk.shutdown()),
  };
}
