export { isProbePath, startTelemetry, type Telemetry, type TelemetryOptions } from './start';
export { currentTraceHeaders, extractTraceContext, withExtractedContext, withoutTracing } from './propagation';
export { ensureTelemetry, processNameFromEntry, shutdownTelemetry, telemetryState, type TelemetryState } from './state';
export { isInternalOrigin, registerInternalOrigin } from './internal-origins';
