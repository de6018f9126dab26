import { startTelemetry, type Telemetry } from './start';

/** Whether this process's tracing SDK was started, when, and why not. One per process (a global, so two copies of kit agree). */
export interface TelemetryState {
  telemetry: Telemetry | null;
  /** `preload`: before the application's modules (register.ts); `late`: by ensureTelemetry, after them. */
  when: 'preload' | 'late' | null;
  serviceName: string | null;
  endpoint: string | null;
  /** Why the SDK could not start (it threw). */
  error: string | null;
}

const KEY = Symbol.for('helpdesk.kit.telemetry');
type WithState = typeof globalThis & { [KEY]?: TelemetryState };

export function telemetryState(): TelemetryState {
  const g = globalThis as WithState;
  return (g[KEY] ??= { telemetry: null, when: null, serviceName: null, endpoint: null, error: null });
}

/** The process's name from its entry file: `services/<name>/…` → name, `gateway/…` → gateway. */
export function processNameFromEntry(entry: string | undefined = process.argv[1]): string | null {
  const path = (entry ?? '').replace(/\\/g, '/');
  const service = /\/services\/([a-z0-9-]+)\//.exec(path);
  if (service) return service[1]!;
  if (/\/gateway\/(src|dist)\//.test(path)) return 'gateway';
  return null;
}

/**
 * Starts the SDK once per process from OpenTelemetry's variables (nothing when
 * OTEL_EXPORTER_OTLP_ENDPOINT is unset). A failure is recorded, never thrown.
 */
export function startTelemetryOnce(opts: { when: 'preload' | 'late'; serviceName?: string; env?: NodeJS.ProcessEnv }): Telemetry | null {
  const state = telemetryState();
  if (state.telemetry || state.error) return state.telemetry;
  const env = opts.env ?? process.env;
  const endpoint = env.OTEL_EXPORTER_OTLP_ENDPOINT || undefined;
  if (!endpoint) return null;
  const serviceName = env.OTEL_SERVICE_NAME || opts.serviceName || processNameFromEntry() || 'helpdesk';
  state.serviceName = serviceName;
  state.endpoint = endpoint;
  try {
    state.telemetry = startTelemetry({ serviceName, endpoint });
    state.when = opts.when;
    if (state.telemetry) process.once('beforeExit', () => void state.telemetry?.shutdown());
  } catch (err) {
    state.error = err instanceof Error ? err.message : String(err);
  }
  return state.telemetry;
}

/** Flushes and stops this process's SDK (a process about to `exit()`); nothing when tracing is off. */
export async function shutdownTelemetry(): Promise<void> {
  await telemetryState().telemetry?.shutdown().catch(() => undefined);
}

/**
 * At a process's start (runServiceMain): with OTEL_EXPORTER_OTLP_ENDPOINT set, tracing must be on.
 * Started by the preload or the entry file's first import: nothing to say. Not started: starts it now
 * (the bus's and the in-process calls' spans and propagation work, modules already loaded are not
 * instrumented) and warns, naming the fix. Could not start: warns with the reason.
 */
export function ensureTelemetry(serviceName: string, logger: { warn(obj: object, msg: string): void; info(obj: object, msg: string): void }, env: NodeJS.ProcessEnv = process.env): void {
  if (!env.OTEL_EXPORTER_OTLP_ENDPOINT) return;
  const state = telemetryState();
  if (!state.telemetry && !state.error) startTelemetryOnce({ when: 'late', serviceName, env });
  if (state.error) {
    logger.warn({ endpoint: state.endpoint, reason: state.error }, `tracing is OFF although OTEL_EXPORTER_OTLP_ENDPOINT is set: the OpenTelemetry SDK could not start (${state.error})`);
  } else if (state.when === 'late') {
    logger.warn(
      { endpoint: state.endpoint, serviceName: state.serviceName },
      'tracing started late: modules loaded before it (http, express, mongodb) are not auto-instrumented; make `import \'@helpdesk/kit/src/telemetry/register\'` the entry file\'s first import or start node with `--require ./shared/kit/src/telemetry/register.ts`',
    );
  } else if (state.telemetry) {
    logger.info({ endpoint: state.endpoint, serviceName: state.serviceName }, 'tracing on: spans exported to OTEL_EXPORTER_OTLP_ENDPOINT');
  }
}
