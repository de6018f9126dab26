export { startTelemetry, type Telemetry, type TelemetryOptions } from './start';
export { currentTraceHeaders, extractTraceContext, withExtractedContext } from './propagation';
