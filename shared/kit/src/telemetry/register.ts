/**
 * Preload entry: `node --require <this file>` (from sources: `node --require tsx/cjs --require <this file>`) starts
 * tracing before the application's modules are loaded, so auto-instrumentation can patch them.
 * It reads OpenTelemetry's own standard variables, the one place outside a process's `config.ts`
 * that does (the SDK would read them anyway): OTEL_EXPORTER_OTLP_ENDPOINT (unset = tracing off) and
 * OTEL_SERVICE_NAME (default `helpdesk`). Spans are flushed when the event loop empties (`beforeExit`);
 * a process that ends with `process.exit()` (graceful shutdown) should first
 * `await require('@helpdesk/kit/src/telemetry/register').telemetry?.shutdown()`, or start telemetry itself
 * with `startTelemetry` from its own preload and keep the handle. No signal handler is added here.
 */
import { startTelemetry } from './start';

const telemetry = startTelemetry({
  serviceName: process.env.OTEL_SERVICE_NAME || 'helpdesk',
  endpoint: process.env.OTEL_EXPORTER_OTLP_ENDPOINT || undefined,
});

if (telemetry) {
  process.once('beforeExit', () => void telemetry.shutdown());
}

export { telemetry };
