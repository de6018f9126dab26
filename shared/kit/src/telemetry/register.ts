/**
 * Preload entry: `node --require <this file>` (or `--import tsx --require …` from sources) starts
 * tracing before the application's modules are loaded, so auto-instrumentation can patch them.
 * It reads OpenTelemetry's own standard variables, the one place outside a process's `config.ts`
 * that does (the SDK would read them anyway): OTEL_EXPORTER_OTLP_ENDPOINT (unset = tracing off) and
 * OTEL_SERVICE_NAME (default `helpdesk`). The SDK is flushed on SIGTERM/SIGINT-triggered exit.
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
