import { context, propagation, ROOT_CONTEXT, type Context } from '@opentelemetry/api';

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
