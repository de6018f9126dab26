// runServiceMain's start-up word on tracing (issue 30 item 1): with OTEL_EXPORTER_OTLP_ENDPOINT set, a
// process whose tracing did not start before its modules starts it late and says so, naming the fix;
// one whose SDK could not start says why; without the variable nothing is said.
import { ensureTelemetry, processNameFromEntry, shutdownTelemetry, telemetryState } from '../../src/telemetry';

function recorder() {
  const lines: Array<{ level: string; obj: object; msg: string }> = [];
  return { lines, logger: { warn: (obj: object, msg: string) => lines.push({ level: 'warn', obj, msg }), info: (obj: object, msg: string) => lines.push({ level: 'info', obj, msg }) } };
}

describe('ensureTelemetry', () => {
  afterAll(() => shutdownTelemetry());

  it('names the process from its entry file', () => {
    expect(processNameFromEntry('/app/services/ticketing/src/main.ts')).toBe('ticketing');
    expect(processNameFromEntry('/app/gateway/src/main.ts')).toBe('gateway');
    expect(processNameFromEntry('/app/deploy/local/src/main.ts')).toBeNull();
  });

  it('says nothing without OTEL_EXPORTER_OTLP_ENDPOINT', () => {
    const r = recorder();
    ensureTelemetry('demo', r.logger, {});
    expect(r.lines).toEqual([]);
    expect(telemetryState().telemetry).toBeNull();
  });

  it('warns with the reason when the SDK could not start', () => {
    const state = telemetryState();
    state.error = 'exporter package missing';
    state.endpoint = 'http://127.0.0.1:4318';
    try {
      const r = recorder();
      ensureTelemetry('demo', r.logger, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' });
      expect(r.lines).toEqual([expect.objectContaining({ level: 'warn', msg: expect.stringMatching(/^tracing is OFF .*could not start \(exporter package missing\)/) })]);
    } finally {
      state.error = null;
    }
  });

  it('starts tracing late when nothing started it, and warns naming the fix', () => {
    const r = recorder();
    ensureTelemetry('demo', r.logger, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' });
    expect(telemetryState()).toMatchObject({ when: 'late', serviceName: 'demo' });
    expect(telemetryState().telemetry).not.toBeNull();
    expect(r.lines).toEqual([expect.objectContaining({ level: 'warn', msg: expect.stringContaining("import '@helpdesk/kit/src/telemetry/register'") })]);
  });
});
