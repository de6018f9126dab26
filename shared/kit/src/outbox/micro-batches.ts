import { context, type Context } from '@opentelemetry/api';
import type mongoose from 'mongoose';
import type { EventEnvelope } from '@helpdesk/contracts';
import { AlreadyProcessed, recordProcessed, systemEventScope } from './consume-once';
import { currentTraceHeaders } from '../telemetry/propagation';
import { withOutbox, type Emit } from './with-outbox';

/** Items applied in one batch at most (the bus's prefetch, 32 by default, bounds it first). */
export const MAX_MICRO_BATCH = 64;

export interface MicroBatchStats {
  /** Batches applied whole, the items in them, the largest, and batches applied again one by one. */
  batches: number;
  items: number;
  largest: number;
  split: number;
}

export interface MicroBatches<T> {
  /** Applies `item` in the next batch; resolves once that batch is applied (rejects if it failed on its own). */
  submit(item: T): Promise<void>;
  stats(): MicroBatchStats;
}

interface Pending<T> {
  item: T;
  /** The submitter's context (its consumer span): a batch runs in its first item's, an item applied alone in its own. */
  ctx: Context;
  resolve: () => void;
  reject: (err: unknown) => void;
}

/**
 * Micro-batches for a consumer (docs/adr/0047): the items submitted in the same turn of the event loop
 * (what the bus has in flight, up to its prefetch) are applied together by `apply`, one batch at a time
 * in this process; the next batch is made of what arrived meanwhile (no timer). Each submitter's promise
 * settles with its batch, so a delivery is acknowledged only once its batch is applied. A batch that
 * fails is applied again one item at a time, so a repeated or bad item is skipped or fails alone; a
 * batch of one that fails rejects (the bus redelivers it), unless it failed with AlreadyProcessed.
 */
export function microBatches<T>(apply: (items: T[]) => Promise<void>, opts: { max?: number } = {}): MicroBatches<T> {
  const max = opts.max ?? MAX_MICRO_BATCH;
  const queue: Pending<T>[] = [];
  let running = false;
  const counts: MicroBatchStats = { batches: 0, items: 0, largest: 0, split: 0 };
  const nextTurn = () => new Promise<void>((r) => setImmediate(r));

  async function drain(): Promise<void> {
    try {
      await nextTurn();
      while (queue.length) {
        await settle(queue.splice(0, max));
        await nextTurn();
      }
    } finally {
      running = false;
    }
  }

  async function settle(batch: Pending<T>[]): Promise<void> {
    try {
      await context.with(batch[0]!.ctx, () => apply(batch.map((p) => p.item)));
      counts.batches++;
      counts.items += batch.length;
      counts.largest = Math.max(counts.largest, batch.length);
      for (const p of batch) p.resolve();
    } catch (err) {
      if (batch.length === 1) {
        if (err instanceof AlreadyProcessed) batch[0]!.resolve();
        else batch[0]!.reject(err);
        return;
      }
      counts.split++;
      for (const p of batch) await settle([p]);
    }
  }

  return {
    submit(item: T): Promise<void> {
      return new Promise<void>((resolve, reject) => {
        queue.push({ item, ctx: context.active(), resolve, reject });
        if (!running) {
          running = true;
          void drain();
        }
      });
    },
    stats: () => ({ ...counts }),
  };
}

/**
 * consumeOnceEmitting for micro-batches: the events of a batch (a repeated id in it counted once) are
 * recorded in `processed_events`, applied by `apply` and their emitted events written to the outbox,
 * all in ONE transaction. `emitFor(cause)` emits with the causing event's team, partition and
 * requestId, the system as actor, as consumeOnceEmitting does for one event.
 */
export function consumeBatchesOnce<E extends EventEnvelope>(
  conn: mongoose.Connection,
  consumer: string,
  apply: (events: E[], session: mongoose.ClientSession, emitFor: (cause: E) => Emit) => Promise<void>,
  opts: { max?: number } = {},
): MicroBatches<E> {
  const batches = microBatches<{ event: E; trace: Record<string, string> }>(async (all) => {
    const seen = new Set<string>();
    const items = all.filter((i) => !seen.has(i.event.id) && seen.add(i.event.id));
    const events = items.map((i) => i.event);
    const traceOf = new Map(items.map((i) => [i.event, i.trace]));
    // Each emitted event carries its cause's scope and trace context (emitFor: the trace of the
    // cause's delivery, not the batch's first); the unit's own is the first event's.
    await withOutbox(conn, systemEventScope(events[0]!, events[0]!.requestId), async (session, emit) => {
      await recordProcessed(conn, consumer, events, session);
      await apply(events, session, (cause) => (input) => emit(input, { ...systemEventScope(cause, cause.requestId), trace: traceOf.get(cause) }));
    }, { consumer: true });
  }, opts);
  return {
    // The trace context of the submitting delivery (its consumer span), kept with the event.
    submit: (event) => batches.submit({ event, trace: currentTraceHeaders() }),
    stats: () => batches.stats(),
  };
}
