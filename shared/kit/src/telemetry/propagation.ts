import { context, createContextKey, propagation, ROOT_CONTEXT, type Context } from '@opentelemetry/api';

/**
 * W3C trace context (`traceparent`, `tracestate`) of the active span, as message headers. Empty when no
 * SDK is started (the API's propagator is a no-op until then).
 */
export function currentTraceHeaders(ctx: Context = context.active()): Record<string, string> {
  const carrier: Record<string, string> = {};
  propagation.inject(ctx, carrier);
  return carrier;
}

/** The context carried by `headers` (from a message), or the root context when they carry none. */
export function extractTraceContext(headers: Record<string, unknown> | undefined | null): Context {
  const carrier: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers ?? {})) {
    if (typeof v === 'string') carrier[k] = v;
    else if (Buffer.isBuffer(v)) carrier[k] = v.toString('utf8');
  }
  return propagation.extract(ROOT_CONTEXT, carrier);
}

/** Runs `fn` inside the trace context carried by `headers`, so spans it starts join that trace. */
export function withExtractedContext<R>(headers: Record<string, unknown> | undefined | null, fn: () => R): R {
  return context.with(extractTraceContext(headers), fn);
}

/**
 * The key OpenTelemetry's SDK and instrumentations read to suppress tracing (`suppressTracing` of
 * @opentelemetry/core: `createContextKey` uses `Symbol.for` of this description, so it is the same key).
 */
const SUPPRESS_TRACING_KEY = createContextKey('OpenTelemetry SDK Context Key SUPPRESS_TRACING');

/**
 * Runs `fn` with tracing suppressed: the database queries of background work that runs whether or not
 * anything happens (the outbox relay's polls, its lease, metric scrapes) make no spans, so an idle
 * service sends no traces. Spans started with an explicit parent from a message's headers (the bus's
 * publish spans) are not affected.
 */
export function withoutTracing<R>(fn: () => R): R {
  return context.with(context.active().setValue(SUPPRESS_TRACING_KEY, true), fn);
}
