import { context, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { currentTraceHeaders, startTelemetry, withExtractedContext, type Telemetry } from '../../src/telemetry';

describe('telemetry', () => {
  it('is off (null) without an endpoint or span processors, and the helpers are no-ops', () => {
    expect(startTelemetry({ serviceName: 'x' })).toBeNull();
    expect(currentTraceHeaders()).toEqual({});
  });

  describe('started with an in-memory exporter', () => {
    const exporter = new InMemorySpanExporter();
    const processor = new SimpleSpanProcessor(exporter);
    let telemetry: Telemetry;
    beforeAll(() => {
      telemetry = startTelemetry({ serviceName: 'kit-test', spanProcessors: [processor], autoInstrumentations: false })!;
    });
    afterAll(() => telemetry.shutdown());

    it('puts the active span in W3C headers and a span started under withExtractedContext joins that trace', async () => {
      const tracer = trace.getTracer('test');
      const parent = tracer.startSpan('request');
      const headers = context.with(trace.setSpan(context.active(), parent), () => currentTraceHeaders());
      const { traceId, spanId } = parent.spanContext();
      expect(headers.traceparent).toBe(`00-${traceId}-${spanId}-01`);
      parent.end();

      // As if on the other side of the broker: only the headers crossed.
      const wireHeaders = JSON.parse(JSON.stringify(headers));
      withExtractedContext(wireHeaders, () => tracer.startSpan('consume').end());
      await processor.forceFlush(); // export waits for the SDK's async resource detection
      const consume = exporter.getFinishedSpans().find((s) => s.name === 'consume')!;
      expect(consume.spanContext().traceId).toBe(traceId);
      expect(consume.parentSpanContext?.spanId).toBe(spanId);
    });

    it('starts a new trace when the headers carry none', async () => {
      const tracer = trace.getTracer('test');
      withExtractedContext({}, () => tracer.startSpan('orphan').end());
      await processor.forceFlush();
      const orphan = exporter.getFinishedSpans().find((s) => s.name === 'orphan')!;
      expect(orphan.parentSpanContext).toBeUndefined();
    });
  });
});
