import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { parseEvent, topicMatches, type EventEnvelope } from '@helpdesk/contracts';
import { consumerDeliveries, consumerProcessingDuration, consumerRedeliveries, embeddedStoreEntries, queueDepth } from '../metrics';
import { currentTraceHeaders, extractTraceContext } from '../telemetry/propagation';
import { inProcessOwnershipRefusal } from './ownership';
import {
  DEFAULT_MAX_ATTEMPTS,
  DEFAULT_PREFETCH,
  DEFAULT_RETRY_DELAY_MS,
  deadLetterRecord,
  frozenEvent,
  parseDelivery,
  retryDelay,
  type BusLogger,
  type DeadLetter,
  type DeadLetterQueue,
  type DeadLetterRecord,
  type EventBus,
  type EventHandler,
  type PublishOptions,
  type SubscribeOptions,
} from './types';

const tracer = trace.getTracer('@helpdesk/kit/bus');

interface Delivery {
  /** The event as it would cross the wire: JSON text. */
  json: string;
  /**
   * `parseEvent`'s output for what was published (validated once, at publish), frozen and shared by
   * every queue the event went to (docs/adr/0054); `json` is its text. Absent for a replayed dead
   * letter, parsed and validated again on delivery.
   */
  event?: EventEnvelope;
  attempt: number;
  /** W3C trace headers, as a message would carry them. */
  headers: Record<string, string>;
  /** The service that published it (its outbox relay), as RabbitMQ's `user_id` names it; absent: not said. */
  publisher?: string;
}

interface Consumer {
  handler: EventHandler;
  prefetch: number;
  maxAttempts: number;
  retryDelayMs: number;
  inFlight: number;
}

interface MemoryQueue {
  service: string;
  patterns: Set<string>;
  /** Whether an event type matches one of `patterns`, by type (cleared when a pattern is added). */
  matches: Map<string, boolean>;
  ready: Delivery[];
  consumers: Consumer[];
  next: number;
}

/**
 * In-process bus with RabbitMQ's semantics, used by local runs (`npm start` without `AMQP_URL`) and tests.
 *
 * - Every event is serialised to JSON and parsed with `parseEvent` on publish (a payload that could
 *   not cross the wire, or that the catalog refuses, rejects the whole `publish`); the queues share one
 *   frozen copy parsed from the validated JSON (docs/adr/0045: one validation per event, not one per
 *   queue; docs/adr/0054: one parse, handlers cannot write into an event).
 * - One queue per service, created by its first `subscribe` and bound to its patterns (topic semantics:
 *   `*` one word, `#` zero or more). As with an unbound RabbitMQ queue, events published before a
 *   service subscribes are not delivered to it: in local mode every service subscribes at start-up,
 *   before anything publishes.
 * - Delivery is asynchronous (never inside `publish`), at most `prefetch` in flight per consumer; a
 *   handler that throws is retried after `retryDelayMs * 2^(attempt-1)` up to `maxAttempts`, then the
 *   event goes to `deadLetters` (inspectable). An event that fails to parse on delivery is dead-lettered at once.
 * - Trace context travels with each message (the active context at publish, or `traceHeaders`), and the
 *   handler runs in a consumer span joined to it, so local traces span publisher → consumer too.
 */
export class MemoryBus implements EventBus {
  readonly processLocal = true;
  readonly deadLetters: DeadLetter[] = [];
  private readonly queues = new Map<string, MemoryQueue>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly running = new Set<Promise<void>>();
  private closed = false;
  private scheduled = false;
  private readonly unregisterMetrics: Array<() => void>;

  constructor(private readonly logger: BusLogger) {
    this.unregisterMetrics = [
      queueDepth.add(() =>
        [...this.queues.values()].flatMap((q) => [
          { labels: { queue: q.service, kind: 'ready' }, value: q.ready.length },
          { labels: { queue: q.service, kind: 'dead' }, value: this.deadLetters.filter((d) => d.service === q.service).length },
        ]),
      ),
      embeddedStoreEntries.add(() => [{ labels: { store: 'memory-bus' }, value: [...this.queues.values()].reduce((n, q) => n + q.ready.length, 0) + this.deadLetters.length }]),
    ];
  }

  ready(): boolean {
    return !this.closed;
  }

  readonly deadLetterQueue: DeadLetterQueue = {
    list: async (service) => this.deadLetters.filter((d) => d.service === service).map(toRecord),
    replay: async (service, ids) =>
      this.takeDeadLetters(service, ids).map((d) => {
        // Back to that service's queue only, as a first attempt.
        this.queues.get(service)?.ready.push({ json: JSON.stringify(d.event), attempt: 1, headers: {}, publisher: d.publisher });
        this.schedule();
        return toRecord(d);
      }),
    discard: async (service, ids) => this.takeDeadLetters(service, ids).map(toRecord),
  };

  private takeDeadLetters(service: string, ids: string[] | null): DeadLetter[] {
    const taken: DeadLetter[] = [];
    for (let i = this.deadLetters.length - 1; i >= 0; i--) {
      const d = this.deadLetters[i];
      if (d.service === service && (!ids || ids.includes(toRecord(d).eventId))) taken.unshift(...this.deadLetters.splice(i, 1));
    }
    return taken;
  }

  async publish(events: EventEnvelope[], opts: PublishOptions = {}): Promise<void> {
    if (this.closed) throw new Error('bus closed');
    // Validate the whole batch first, like a batch the broker refuses as a whole.
    const wire = events.map((e, i) => {
      const event = frozenEvent(parseEvent(JSON.parse(JSON.stringify(e))));
      // A producer span per event, as on RabbitMQ: a child of the context stored with the event (the
      // request's), else of the active one; the consumers' spans are its children.
      const parent = opts.traceHeaders?.[i] ? extractTraceContext(opts.traceHeaders[i]) : context.active();
      const span = tracer.startSpan('memory publish', {
        kind: SpanKind.PRODUCER,
        attributes: { 'messaging.system': 'memory', 'messaging.destination.name': event.type, 'messaging.message.id': event.id, ...(opts.publisher ? { 'helpdesk.publisher': opts.publisher } : {}) },
      }, parent);
      const headers = span.isRecording() ? currentTraceHeaders(trace.setSpan(parent, span)) : (opts.traceHeaders?.[i] ?? currentTraceHeaders());
      span.end();
      return { event, json: JSON.stringify(event), headers };
    });
    for (const { event, json, headers } of wire) {
      for (const q of this.queues.values()) {
        if (this.bound(q, event.type)) q.ready.push({ json, event, attempt: 1, headers, publisher: opts.publisher });
      }
    }
    this.schedule();
  }

  async subscribe(service: string, patterns: string[], handler: EventHandler, opts: SubscribeOptions = {}): Promise<void> {
    if (this.closed) throw new Error('bus closed');
    let q = this.queues.get(service);
    if (!q) {
      q = { service, patterns: new Set(), matches: new Map(), ready: [], consumers: [], next: 0 };
      this.queues.set(service, q);
    }
    for (const p of patterns) q.patterns.add(p);
    q.matches.clear();
    q.consumers.push({
      handler,
      prefetch: opts.prefetch ?? DEFAULT_PREFETCH,
      maxAttempts: opts.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
      retryDelayMs: opts.retryDelayMs ?? DEFAULT_RETRY_DELAY_MS,
      inFlight: 0,
    });
  }

  /** Whether the queue is bound to events of `type`. */
  private bound(q: MemoryQueue, type: string): boolean {
    let m = q.matches.get(type);
    if (m === undefined) q.matches.set(type, (m = [...q.patterns].some((p) => topicMatches(p, type))));
    return m;
  }

  /** Resolves when no event is queued, in flight or waiting for a retry (for tests). */
  async idle(timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.busy()) {
      if (Date.now() > deadline) throw new Error(`memory bus not idle after ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 5));
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const unregister of this.unregisterMetrics) unregister();
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    await Promise.allSettled([...this.running]);
    this.queues.clear();
  }

  private busy(): boolean {
    if (this.timers.size || this.running.size || this.scheduled) return true;
    for (const q of this.queues.values()) if (q.ready.length && q.consumers.length) return true;
    return false;
  }

  private schedule(): void {
    if (this.scheduled || this.closed) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.dispatch();
    });
  }

  private dispatch(): void {
    for (const q of this.queues.values()) {
      while (q.ready.length && q.consumers.length) {
        const consumer = this.pickConsumer(q);
        if (!consumer) break;
        const delivery = q.ready.shift()!;
        this.deliver(q, consumer, delivery);
      }
    }
  }

  /** Round-robin over the consumers that have room under their prefetch. */
  private pickConsumer(q: MemoryQueue): Consumer | undefined {
    for (let i = 0; i < q.consumers.length; i++) {
      const c = q.consumers[(q.next + i) % q.consumers.length];
      if (c.inFlight < c.prefetch) {
        q.next = (q.next + i + 1) % q.consumers.length;
        return c;
      }
    }
    return undefined;
  }

  private deliver(q: MemoryQueue, consumer: Consumer, delivery: Delivery): void {
    consumer.inFlight++;
    const run = (async () => {
      let event: EventEnvelope;
      if (delivery.event) event = delivery.event;
      else {
        const parsed = parseDelivery(delivery.json);
        if (parsed.error !== undefined) {
          this.deadLetter(q.service, delivery, new Error(parsed.error));
          return;
        }
        event = frozenEvent(parsed.event);
      }
      // Only an event's owner publishes it (ownership.ts), as consumers check on RabbitMQ.
      const refusal = inProcessOwnershipRefusal(event.type, delivery.publisher);
      if (refusal) {
        this.deadLetter(q.service, delivery, new Error(refusal));
        return;
      }
      if (delivery.attempt > 1) consumerRedeliveries.inc({ queue: q.service });
      // The handler runs in a consumer span of the publisher's trace, as on RabbitMQ.
      const parent = extractTraceContext(delivery.headers);
      const started = process.hrtime.bigint();
      const timed = (outcome: string) => consumerProcessingDuration.observe({ queue: q.service, type: event.type, outcome }, Number(process.hrtime.bigint() - started) / 1e9);
      const span = tracer.startSpan(`${q.service} process`, {
        kind: SpanKind.CONSUMER,
        attributes: { 'messaging.system': 'memory', 'messaging.destination.name': q.service, 'messaging.message.id': event.id, 'helpdesk.attempt': delivery.attempt },
      }, parent);
      try {
        await context.with(trace.setSpan(parent, span), () =>
          consumer.handler(event, { redelivered: delivery.attempt > 1, attempt: delivery.attempt }),
        );
        span.end();
        consumerDeliveries.inc({ queue: q.service, outcome: 'acked' });
        timed('acked');
      } catch (err) {
        span.recordException(err as Error);
        span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error)?.message });
        span.end();
        if (this.closed) return;
        if (delivery.attempt >= consumer.maxAttempts) {
          timed('dead_lettered');
          this.deadLetter(q.service, delivery, err);
          return;
        }
        consumerDeliveries.inc({ queue: q.service, outcome: 'retried' });
        timed('retried');
        const delay = retryDelay(delivery.attempt, consumer.retryDelayMs);
        this.logger.warn({ err, eventId: event.id, service: q.service, attempt: delivery.attempt, delay }, 'event handler failed; retrying');
        const timer = setTimeout(() => {
          this.timers.delete(timer);
          q.ready.push({ ...delivery, attempt: delivery.attempt + 1 });
          this.schedule();
        }, delay);
        this.timers.add(timer);
      }
    })().finally(() => {
      consumer.inFlight--;
      this.running.delete(run);
      this.schedule();
    });
    this.running.add(run);
  }

  private deadLetter(service: string, delivery: Delivery, err: unknown): void {
    let event: unknown = delivery.json;
    try {
      event = JSON.parse(delivery.json);
    } catch {
      /* keep the raw text */
    }
    const error = err instanceof Error ? err.message : String(err);
    consumerDeliveries.inc({ queue: service, outcome: 'dead_lettered' });
    this.deadLetters.push({ service, event, attempts: delivery.attempt, error, publisher: delivery.publisher });
    this.logger.error({ service, attempts: delivery.attempt, error, eventId: (event as { id?: string })?.id }, 'event dead-lettered');
  }
}

const toRecord = (d: DeadLetter): DeadLetterRecord => deadLetterRecord(d.service, d.event, d.attempts, d.error);
