/**
 * Starts tracing before the application's modules are loaded, so auto-instrumentation can patch them.
 * Two equivalent ways, both idempotent (the second does nothing):
 *   - preload: `node --require tsx/cjs --require ./shared/kit/src/telemetry/register.ts <entry>`;
 *   - the FIRST import of a process's entry file (every `services/<name>/src/main.ts` does
 *     `import '@helpdesk/kit/src/telemetry/register';` before anything else), so however the process
 *     is started (the image, `npm start`, `npm run start:processes`, `npx tsx …/main.ts`) tracing is on
 *     wherever OTEL_EXPORTER_OTLP_ENDPOINT is set.
 * It reads OpenTelemetry's own standard variables, the one place outside a process's `config.ts`
 * that does (the SDK would read them anyway): OTEL_EXPORTER_OTLP_ENDPOINT (unset = tracing off) and
 * OTEL_SERVICE_NAME (default: the process's name from its entry path, `services/<name>/…` or
 * `gateway/…`, else `helpdesk`). Spans are flushed when the event loop empties (`beforeExit`) and by
 * `shutdownTelemetry()` (runServiceMain's shutdown). A start that fails is kept (`telemetryState()`)
 * and said at start by runServiceMain (`ensureTelemetry`).
 */
import { startTelemetryOnce } from './state';

const telemetry = startTelemetryOnce({ when: 'preload' });

export { telemetry };
