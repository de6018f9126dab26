import { context, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type mongoose from 'mongoose';
import { MemoryBus } from '../../src/bus';
import { startOutboxRelay, withOutbox, type EventScope } from '../../src/outbox';
import { startTelemetry, type Telemetry } from '../../src/telemetry';
import { silentLogger, TEAM, ticket, waitFor } from '../bus/fixtures';
import { describeDb, startMongo, type TestMongo } from './mongo';

const scope: EventScope = { teamId: TEAM, mode: 'test', requestId: 'req_trace', actor: { type: 'key', id: 'key_1' } };

describeDb('trace context through the outbox (embedded MongoDB, memory bus)', () => {
  const exporter = new InMemorySpanExporter();
  const processor = new SimpleSpanProcessor(exporter);
  let telemetry: Telemetry;
  let mongo: TestMongo;
  let conn: mongoose.Connection;
  beforeAll(async () => {
    telemetry = startTelemetry({ serviceName: 'outbox-trace', spanProcessors: [processor], autoInstrumentations: false })!;
    mongo = await startMongo();
    conn = await mongo.connect('outbox_trace');
  });
  afterAll(async () => {
    await mongo.close();
    await telemetry.shutdown();
  });

  it('the consumer runs in the trace of the request that emitted the event, though the relay published it later', async () => {
    const bus = new MemoryBus(silentLogger);
    const seen = new Map<string, string | undefined>();
    await bus.subscribe('observer', ['ticket.*'], async (e) => void seen.set(e.id, trace.getActiveSpan()?.spanContext().traceId));
    const relay = startOutboxRelay({ conn, bus, logger: silentLogger });
    try {
      const request = trace.getTracer('test').startSpan('POST /tickets');
      const e = await context.with(trace.setSpan(context.active(), request), () =>
        withOutbox(conn, scope, async (_s, emit) => emit({ type: 'ticket.created', data: { ticket: ticket() } })),
      );
      request.end();
      await relay.drain();
      await waitFor(() => seen.has(e.id), 3000, 'delivery');
      expect(seen.get(e.id)).toBe(request.spanContext().traceId);
      await processor.forceFlush();
      const consumer = exporter.getFinishedSpans().find((s) => s.name === 'observer process')!;
      // Its parent is the relay's publish span (as on RabbitMQ), a child of the request's.
      const publish = exporter.getFinishedSpans().find((s) => s.name === 'memory publish' && s.attributes['messaging.message.id'] === e.id)!;
      expect(consumer.parentSpanContext?.spanId).toBe(publish.spanContext().spanId);
      expect(publish.parentSpanContext?.spanId).toBe(request.spanContext().spanId);
    } finally {
      await relay.stop();
      await bus.close();
    }
  });
});
