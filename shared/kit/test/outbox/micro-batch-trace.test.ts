// Events handled in one micro-batch keep each its own trace context (issue 30 item 1): the events a
// batch emits carry their cause's trace (not the batch's first event's), and an event applied alone
// after its batch failed runs in its own delivery's context.
import { context, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type mongoose from 'mongoose';
import { consumeBatchesOnce, microBatches, outboxModel } from '../../src/outbox';
import { startTelemetry, type Telemetry } from '../../src/telemetry';
import { envelope, ticket } from '../bus/fixtures';
import { describeDb, startMongo, type TestMongo } from './mongo';

describeDb('micro-batches keep each event’s trace context', () => {
  let mongo: TestMongo;
  let conn: mongoose.Connection;
  let telemetry: Telemetry;
  const tracer = () => trace.getTracer('micro-batch-test');
  beforeAll(async () => {
    telemetry = startTelemetry({ serviceName: 'micro-batch-test', spanProcessors: [new SimpleSpanProcessor(new InMemorySpanExporter())], autoInstrumentations: false })!;
    mongo = await startMongo();
    conn = await mongo.connect('micro_batch_trace');
  });
  afterAll(async () => {
    await mongo?.close();
    await telemetry?.shutdown();
  });

  it('emits each event of a batch with the trace of the delivery that caused it', async () => {
    let batchSizes: number[] = [];
    const batches = consumeBatchesOnce(conn, 'traced', async (events, _session, emitFor) => {
      batchSizes.push(events.length);
      for (const e of events) emitFor(e)({ type: 'ticket.created', data: { ticket: ticket(`tkt_from_${e.id}`) } });
    });
    const causes = [envelope(), envelope(), envelope()];
    const spans = causes.map((e) => tracer().startSpan(`deliver ${e.id}`));
    // Submitted in one turn, each inside its own delivery's span (as the bus's consumer spans are).
    await Promise.all(causes.map((e, i) => context.with(trace.setSpan(context.active(), spans[i]!), () => batches.submit(e))));
    spans.forEach((s) => s.end());
    expect(batchSizes).toEqual([3]);
    const rows = await outboxModel(conn).find({ 'envelope.data.ticket.id': { $in: causes.map((e) => `tkt_from_${e.id}`) } }).lean();
    expect(rows).toHaveLength(3);
    for (const [i, e] of causes.entries()) {
      const row = rows.find((r) => (r.envelope as { data: { ticket: { id: string } } }).data.ticket.id === `tkt_from_${e.id}`)!;
      expect([e.id, row.trace?.traceparent?.split('-')[1]]).toEqual([e.id, spans[i]!.spanContext().traceId]);
    }
    batchSizes = [];
  });

  it('applies an item alone (after its batch failed) in its own submitter’s context', async () => {
    const seen: Array<[number, string | undefined]> = [];
    const b = microBatches<number>(async (items) => {
      if (items.length > 1) throw new Error('split');
      seen.push([items[0]!, trace.getActiveSpan()?.spanContext().traceId]);
    });
    const spans = [1, 2].map((n) => tracer().startSpan(`deliver ${n}`));
    await Promise.all([1, 2].map((n, i) => context.with(trace.setSpan(context.active(), spans[i]!), () => b.submit(n))));
    expect(seen).toEqual([[1, spans[0]!.spanContext().traceId], [2, spans[1]!.spanContext().traceId]]);
  });
});
