import { context, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { currentTraceHeaders, startTelemetry, type Telemetry } from '../../src/telemetry';
import { type AmqpBus } from '../../src/bus';
import { envelope, waitFor } from '../bus/fixtures';
import { AMQP_URL, deleteTopology, describeAmqp, newBus, uniqueNames } from '../bus/amqp-helpers';

describeAmqp('trace context across RabbitMQ (AMQP_URL)', () => {
  const url = AMQP_URL!;
  const names = uniqueNames();
  const exporter = new InMemorySpanExporter();
  let telemetry: Telemetry;
  let bus: AmqpBus;
  const seen = new Map<string, { traceId: string | undefined }>();

  beforeAll(async () => {
    telemetry = startTelemetry({ serviceName: 'kit-trace-test', spanProcessors: [new SimpleSpanProcessor(exporter)], autoInstrumentations: false })!;
    bus = newBus(url, names);
    await bus.subscribe('traced', ['ticket.*'], async (e) => {
      seen.set(e.id, { traceId: trace.getActiveSpan()?.spanContext().traceId });
    });
  });
  afterAll(async () => {
    await bus.close();
    await deleteTopology(url, names, ['traced']);
    await telemetry.shutdown();
  });

  it('the handler runs in a consumer span of the publisher\'s trace (publish → producer span → headers → consumer span)', async () => {
    const tracer = trace.getTracer('test');
    const e = envelope();
    const request = tracer.startSpan('POST /tickets');
    await context.with(trace.setSpan(context.active(), request), () => bus.publish([e]));
    request.end();
    await waitFor(() => seen.has(e.id), 5000, 'delivery');
    const traceId = request.spanContext().traceId;
    expect(seen.get(e.id)!.traceId).toBe(traceId);
    await waitFor(() => exporter.getFinishedSpans().some((s) => s.name.endsWith(' process')), 2000, 'consumer span');
    const spans = exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === traceId);
    const producer = spans.find((s) => s.name === `${names.exchange} publish`)!;
    const consumer = spans.find((s) => s.name === `${names.queuePrefix}.traced process`)!;
    expect(producer.parentSpanContext?.spanId).toBe(request.spanContext().spanId);
    expect(consumer.parentSpanContext?.spanId).toBe(producer.spanContext().spanId);
  });

  it('uses trace headers captured earlier (the outbox relay publishes outside the request)', async () => {
    const tracer = trace.getTracer('test');
    const e = envelope();
    const request = tracer.startSpan('PATCH /tickets/1');
    const captured = context.with(trace.setSpan(context.active(), request), () => currentTraceHeaders());
    request.end();
    await bus.publish([e], { traceHeaders: [captured] }); // no active span here
    await waitFor(() => seen.has(e.id), 5000, 'delivery');
    expect(seen.get(e.id)!.traceId).toBe(request.spanContext().traceId);
  });
});
