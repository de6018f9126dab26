import * as amqp from 'amqplib';
import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { EVENTS_EXCHANGE, parseEvent, type EventEnvelope } from '@helpdesk/contracts';
import { consumerDeliveries, consumerProcessingDuration, consumerRedeliveries, queueDepth } from '../metrics';
import { currentTraceHeaders, extractTraceContext } from '../telemetry/propagation';
import { amqpUser, effectivePublisher, ownershipRefusal, PUBLISHER_HEADER, type PublisherCheck } from './ownership';
import {
  DEFAULT_MAX_ATTEMPTS,
  DEFAULT_PREFETCH,
  DEFAULT_RETRY_DELAY_MS,
  deadLetterRecord,
  frozenEvent,
  ERROR_HEADER,
  NoDeadLetterQueue,
  parseDelivery,
  retryDelay,
  type BusLogger,
  type DeadLetterQueue,
  type DeadLetterRecord,
  type EventBus,
  type EventHandler,
  type PublishOptions,
  type SubscribeOptions,
} from './types';

export interface AmqpBusOptions {
  url: string;
  logger: BusLogger;
  /** Topic exchange for events (default `helpdesk.events`); its dead-letter exchange is `<exchange>.dlx`. */
  exchange?: string;
  /** Queue names are `<queuePrefix>.<service>`, `….retry`, `….dead` (default `helpdesk`). */
  queuePrefix?: string;
  /** Reconnect backoff: first delay, doubled per failed attempt up to the cap (defaults 200 ms, 10 s). */
  reconnectMinMs?: number;
  reconnectMaxMs?: number;
  /** A publish not confirmed within this time rejects (default 10 s). */
  confirmTimeoutMs?: number;
  /** AMQP heartbeat in seconds (default 10), so a dead broker is noticed. */
  heartbeat?: number;
  /**
   * Called once when the broker refuses this bus's credentials or permissions (`BrokerAccessRefused`):
   * the bus has logged it and stopped; a process should end (runServiceMain exits 1).
   */
  onFatal?: (err: BrokerAccessRefused) => void;
  /**
   * Broker users whose copies of a message (an operator's `dead-letters replay`) keep the original
   * publisher for the ownership check (default `helpdesk`, deploy/rabbitmq's operator user; ownership.ts).
   */
  operatorUsers?: readonly string[];
}

/**
 * The broker refused the credentials or the permissions of the URL (403 ACCESS_REFUSED at login or
 * on a channel operation, access to the vhost refused): no retry can fix it, the configuration must change.
 */
export class BrokerAccessRefused extends Error {
  constructor(url: string, cause: unknown) {
    const why = cause instanceof Error ? cause.message : String(cause);
    super(`RabbitMQ refused access for AMQP_URL=${redactedUrl(url)}: ${why}. Check the user, the password and its permissions on the vhost; not retrying.`);
    this.name = 'BrokerAccessRefused';
  }
}

/** True for the broker's authentication and authorisation refusals (never for a broker that is down or restarting). */
export function isAccessRefused(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | null;
  if (e?.code === 403) return true;
  const message = typeof e?.message === 'string' ? e.message : '';
  return /ACCESS[-_]REFUSED|Handshake terminated by server: 403\b|access to vhost .* refused/.test(message);
}

/** The URL with its password replaced by `***` (safe to log). */
export function redactedUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString().replace(/\/$/, '');
  } catch {
    return '(unparseable URL)';
  }
}

interface Subscription {
  service: string;
  patterns: string[];
  handler: EventHandler;
  opts: Required<SubscribeOptions>;
  /** The connection this subscription's consumer runs on (so a start-up race never sets it up twice). */
  conn: amqp.ChannelModel | null;
}

/** Header carrying the 1-based attempt number across retries. */
export const ATTEMPT_HEADER = 'x-helpdesk-attempt';

/**
 * Deliveries of one message to the main queue before the broker dead-letters it (a handler that
 * crashes its process before the ack, again and again). The handlers' own failures go through the
 * retry queue and are acked, so they never count here. RabbitMQ 4's default is 20 too.
 */
export const DELIVERY_LIMIT = 20;

/**
 * Every queue is a quorum queue (replicated over a RabbitMQ cluster, docs/adr/0056): dead-lettering
 * at least once (a message expired from the retry queue or rejected by the main one is never lost
 * between queues, which needs `reject-publish` overflow).
 */
const QUORUM = { 'x-queue-type': 'quorum', 'x-dead-letter-strategy': 'at-least-once', 'x-overflow': 'reject-publish' } as const;
/** The dead-letter queue is read by requeueing what it does not act on (`dead-letters list`): no delivery limit of its own. */
const DEAD_LETTER_QUEUE_ARGS = { 'x-queue-type': 'quorum', 'x-delivery-limit': 1_000_000_000 } as const;

/** A queue that exists with other arguments (a classic queue from before ADR 0056) is an operator's task, said plainly. */
function queueConflict(err: unknown, queue: string): Error {
  const e = err as { code?: number; message?: string };
  if (e?.code !== 406) return err as Error;
  return new Error(
    `RabbitMQ queue ${queue} exists with other arguments (${e.message ?? 'PRECONDITION_FAILED'}). ` +
      'Queues are quorum queues since docs/adr/0056: let the old queue drain, then delete it (rabbitmqctl delete_queue ' + queue + ') and start again.',
  );
}

const tracer = trace.getTracer('@helpdesk/kit/bus');

/** The error listed for a message the broker dead-lettered itself (no handler said why). */
function brokerDeathError(headers: Record<string, unknown>): string {
  const reason = deathReason(headers);
  const why: Record<string, string> = {
    delivery_limit: `delivered ${DELIVERY_LIMIT} times without an acknowledgement (the consumer crashed or stopped while handling it)`,
    rejected: 'rejected by the consumer without a copy of its own (the dead-letter copy was not confirmed)',
    expired: 'expired before it was consumed',
    maxlen: 'the queue was full',
  };
  return `dead-lettered by RabbitMQ (${reason}): ${why[reason] ?? 'see x-death'}`;
}

/** Why the broker dead-lettered a message: its newest death (`x-death` lists the newest first; the first may be a retry's expiry). */
function deathReason(headers: Record<string, unknown>): string {
  const deaths = headers['x-death'] as Array<{ reason?: unknown }> | undefined;
  return String(deaths?.[0]?.reason ?? headers['x-first-death-reason'] ?? 'unknown');
}

function withHeartbeat(url: string, seconds: number): string {
  if (/[?&]heartbeat=/.test(url)) return url;
  return `${url}${url.includes('?') ? '&' : '?'}heartbeat=${seconds}`;
}

/**
 * RabbitMQ bus over amqplib.
 *
 * Topology (declared on every (re)connection, all durable; every queue a quorum queue, docs/adr/0056):
 * - topic exchange `<exchange>` (`helpdesk.events`), routing key = event type;
 * - direct exchange `<exchange>.dlx`;
 * - per service: queue `<prefix>.<service>` bound to its patterns, dead-lettering to the dlx with its
 *   own name as key; queue `<prefix>.<service>.dead` bound to the dlx with that key; queue
 *   `<prefix>.<service>.retry` without consumers, whose expired messages dead-letter back to the main
 *   queue (through the default exchange).
 *
 * Publishing: a confirm channel, the whole batch written at once (pipelined), then every confirm
 * awaited; persistent messages, `messageId` = event id, `type` = event type, W3C trace headers.
 * While disconnected `publish` rejects at once (nothing is buffered: the outbox is the buffer).
 *
 * Consuming: manual acks and prefetch. Success = ack. Failure = the message is republished to the
 * retry queue with a per-message TTL (`retryDelayMs * 2^(attempt-1)`) and the attempt header + 1, the
 * original acked only after the broker confirmed the copy; after `maxAttempts` a copy carrying the
 * last error (`x-helpdesk-error`) goes to `<prefix>.<service>.dead` (the original is rejected
 * without requeue, which dead-letters it there through the dlx, when the copy is not confirmed).
 * An unparseable message is dead-lettered at once. `deadLetterQueue` lists, replays and discards
 * dead letters (the operator CLI, docs/adr/0039). (Per-message TTLs expire at the head of the retry queue only, so a retry
 * can wait longer than its delay behind a longer one, never shorter.)
 *
 * Reconnects after connection loss or a broker restart with capped exponential backoff (jittered),
 * re-declaring the topology and re-subscribing every consumer. A refusal of its credentials or
 * permissions is not retried: the bus logs one error naming AMQP_URL (without the password), stops,
 * rejects whoever waits for it and calls `onFatal`.
 */
export class AmqpBus implements EventBus {
  readonly exchange: string;
  readonly deadLetterExchange: string;
  readonly queuePrefix: string;
  private readonly logger: BusLogger;
  private conn: amqp.ChannelModel | null = null;
  private pubChannel: amqp.ConfirmChannel | null = null;
  private readonly subs: Subscription[] = [];
  private readonly consumerChannels: Array<{ ch: amqp.ConfirmChannel; tag: string }> = [];
  private readonly inFlight = new Set<Promise<void>>();
  private closed = false;
  private connecting: Promise<void> | null = null;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private failures = 0;
  /** Set when the broker refused access: the bus is stopped for good. */
  private refused: BrokerAccessRefused | null = null;
  private waiters: Array<{ resolve: () => void; reject: (e: Error) => void }> = [];
  private readonly unregisterDepth: () => void;
  /** The connection's user: the `user_id` of every message this bus publishes (RabbitMQ validates it). */
  readonly user: string;
  private readonly publisherCheck: PublisherCheck;

  constructor(private readonly opts: AmqpBusOptions) {
    this.user = amqpUser(opts.url);
    this.publisherCheck = { ownUser: this.user, operatorUsers: opts.operatorUsers };
    this.exchange = opts.exchange ?? EVENTS_EXCHANGE;
    this.deadLetterExchange = `${this.exchange}.dlx`;
    this.queuePrefix = opts.queuePrefix ?? 'helpdesk';
    this.logger = opts.logger;
    this.unregisterDepth = queueDepth.add(() => this.queueDepths());
    this.connectSoon(0);
  }

  ready(): boolean {
    return this.connected;
  }

  /** Consumer lag (ready messages) and dead letters of each subscribed queue, read at scrape time. */
  private async queueDepths(): Promise<Array<{ labels: Record<string, string>; value: number }>> {
    const conn = this.conn;
    if (!conn || !this.subs.length) return [];
    const ch = await conn.createChannel();
    ch.on('error', () => undefined);
    try {
      const out = [];
      for (const service of new Set(this.subs.map((s) => s.service))) {
        const { main, dead } = this.queueNames(service);
        out.push({ labels: { queue: main, kind: 'ready' }, value: (await ch.checkQueue(main)).messageCount });
        out.push({ labels: { queue: main, kind: 'dead' }, value: (await ch.checkQueue(dead)).messageCount });
      }
      return out;
    } finally {
      await ch.close().catch(() => undefined);
    }
  }

  readonly deadLetterQueue: DeadLetterQueue = {
    list: (service) => this.sweepDeadLetters(service, 'list', null),
    replay: (service, ids) => this.sweepDeadLetters(service, 'replay', ids),
    discard: (service, ids) => this.sweepDeadLetters(service, 'discard', ids),
  };

  /**
   * Reads every message of the service's dead-letter queue on a channel of its own, acts on the
   * ones `ids` names (null: all; replay: a copy to the service's own queue at attempt 1, confirmed before the
   * dead letter is acked; discard: ack), and hands the others back (closing the channel requeues them).
   */
  private async sweepDeadLetters(service: string, action: 'list' | 'replay' | 'discard', ids: string[] | null): Promise<DeadLetterRecord[]> {
    await this.waitForConnection();
    const { main, dead } = this.queueNames(service);
    const ch = await this.conn!.createConfirmChannel();
    ch.on('error', (err: { code?: number }) => {
      if (err?.code !== 404) this.logger.warn({ err, queue: dead }, 'RabbitMQ dead-letter channel error');
    });
    const seen: DeadLetterRecord[] = [];
    try {
      try {
        await ch.checkQueue(dead);
      } catch (err) {
        if ((err as { code?: number }).code === 404) throw new NoDeadLetterQueue(service, dead);
        throw err;
      }
      for (;;) {
        const msg = await ch.get(dead, { noAck: false });
        if (!msg) break;
        const headers = msg.properties.headers ?? {};
        let event: unknown = null;
        try {
          event = JSON.parse(msg.content.toString('utf8'));
        } catch {
          /* listed as unparseable */
        }
        const rawError = headers[ERROR_HEADER];
        const error = rawError !== undefined ? String(rawError) : brokerDeathError(headers);
        const record = deadLetterRecord(service, event, Number(headers[ATTEMPT_HEADER]) || 1, error);
        if (action === 'list') {
          seen.push(record);
          continue;
        }
        if (ids && !ids.includes(record.eventId)) continue;
        if (action === 'replay') {
          const { [ERROR_HEADER]: _error, ...rest } = headers;
          ch.sendToQueue(main, msg.content, this.copyProperties(msg.properties, { ...rest, [ATTEMPT_HEADER]: 1 }));
          await ch.waitForConfirms();
        }
        ch.ack(msg);
        seen.push(record);
      }
    } finally {
      await ch.close().catch(() => undefined);
    }
    return seen;
  }

  /** Queue names of one service. */
  queueNames(service: string): { main: string; retry: string; dead: string } {
    const main = `${this.queuePrefix}.${service}`;
    return { main, retry: `${main}.retry`, dead: `${main}.dead` };
  }

  get connected(): boolean {
    return this.pubChannel !== null;
  }

  /** Resolves at the next successful connection (at once when connected); rejects when the bus closes. */
  waitForConnection(): Promise<void> {
    if (this.refused) return Promise.reject(this.refused);
    if (this.closed) return Promise.reject(new Error('bus closed'));
    if (this.connected) return Promise.resolve();
    return new Promise((resolve, reject) => this.waiters.push({ resolve, reject }));
  }

  async publish(events: EventEnvelope[], opts: PublishOptions = {}): Promise<void> {
    if (this.refused) throw this.refused;
    if (this.closed) throw new Error('bus closed');
    const ch = this.pubChannel;
    if (!ch) throw new Error('event bus disconnected from RabbitMQ');
    if (!events.length) return;
    const payloads = events.map((e) => {
      const json = JSON.stringify(e);
      parseEvent(JSON.parse(json));
      return Buffer.from(json);
    });
    const confirms: Promise<void>[] = [];
    let blocked: Promise<void> | null = null;
    for (let i = 0; i < events.length; i++) {
      const e = events[i];
      const parent = opts.traceHeaders?.[i] ? extractTraceContext(opts.traceHeaders[i]) : context.active();
      const span = tracer.startSpan(`${this.exchange} publish`, {
        kind: SpanKind.PRODUCER,
        attributes: { 'messaging.system': 'rabbitmq', 'messaging.destination.name': this.exchange, 'messaging.rabbitmq.destination.routing_key': e.type, 'messaging.message.id': e.id },
      }, parent);
      const spanCtx = trace.setSpan(parent, span);
      const headers = currentTraceHeaders(spanCtx);
      confirms.push(
        new Promise<void>((resolve, reject) => {
          let ok: boolean;
          try {
            // Inside the producer span's context, so an amqplib auto-instrumentation (if enabled)
            // injects a child of it rather than a context-less span.
            ok = context.with(spanCtx, () => ch.publish(this.exchange, e.type, payloads[i], {
              persistent: true,
              messageId: e.id,
              type: e.type,
              contentType: 'application/json',
              // The connection's user: RabbitMQ refuses a message claiming another one, consumers
              // check that it owns the event's type (ownership.ts).
              userId: this.user,
              timestamp: Math.floor(Date.parse(e.occurredAt) / 1000) || undefined,
              headers: { ...headers, [ATTEMPT_HEADER]: 1 },
            }, (err) => {
              if (err) {
                span.setStatus({ code: SpanStatusCode.ERROR, message: String(err?.message ?? err) });
                span.end();
                reject(err instanceof Error ? err : new Error(`publish of ${e.id} not confirmed`));
              } else {
                span.end();
                resolve();
              }
            }));
          } catch (err) {
            span.end();
            reject(err as Error);
            return;
          }
          if (!ok && !blocked) blocked = new Promise<void>((r) => ch.once('drain', () => r()));
        }),
      );
      if (blocked) {
        await Promise.race([blocked, this.timeout(this.opts.confirmTimeoutMs ?? 10_000, 'publish buffer drain')]);
        blocked = null;
      }
    }
    // Mark every promise handled so a failure of one does not surface as an unhandled rejection.
    for (const c of confirms) c.catch(() => undefined);
    await Promise.race([Promise.all(confirms), this.timeout(this.opts.confirmTimeoutMs ?? 10_000, 'publisher confirms')]);
  }

  async subscribe(service: string, patterns: string[], handler: EventHandler, opts: SubscribeOptions = {}): Promise<void> {
    if (this.closed) throw new Error('bus closed');
    const sub: Subscription = {
      service,
      patterns,
      handler,
      opts: {
        prefetch: opts.prefetch ?? DEFAULT_PREFETCH,
        maxAttempts: opts.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
        retryDelayMs: opts.retryDelayMs ?? DEFAULT_RETRY_DELAY_MS,
      },
      conn: null,
    };
    this.subs.push(sub);
    // Start-up: wait for the broker so the queue exists before anything is published. If the connection
    // drops meanwhile, the reconnection sets this subscription up with the others.
    for (;;) {
      await this.waitForConnection();
      const conn = this.conn;
      if (!conn) continue;
      try {
        await this.setupConsumer(conn, sub);
        return;
      } catch (err) {
        if (isAccessRefused(err)) throw this.refuse(err);
        if (this.conn === conn && this.connected) throw err; // a real error (e.g. queue arguments conflict)
      }
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.unregisterDepth();
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    for (const w of this.waiters.splice(0)) w.reject(new Error('bus closed'));
    // Stop deliveries, let the handlers in flight finish and ack, then close the channels.
    const consumers = this.consumerChannels.splice(0);
    for (const { ch, tag } of consumers) await ch.cancel(tag).catch(() => undefined);
    await Promise.allSettled([...this.inFlight]);
    for (const { ch } of consumers) await ch.close().catch(() => undefined);
    const conn = this.conn;
    this.conn = null;
    this.pubChannel = null;
    if (conn) {
      try {
        await conn.close();
      } catch {
        /* already closed */
      }
    }
    try {
      await this.connecting;
    } catch {
      /* ignore */
    }
  }

  private timeout(ms: number, what: string): Promise<never> {
    return new Promise((_, reject) => {
      const t = setTimeout(() => reject(new Error(`${what}: no answer from RabbitMQ in ${ms} ms`)), ms);
      t.unref();
    });
  }

  /** Stops the bus for good on an access refusal: one error line, waiters rejected, `onFatal` called. */
  private refuse(cause: unknown): BrokerAccessRefused {
    if (this.refused) return this.refused;
    const err = (this.refused = new BrokerAccessRefused(this.opts.url, cause));
    this.logger.error({ amqpUrl: redactedUrl(this.opts.url) }, err.message);
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
    for (const w of this.waiters.splice(0)) w.reject(err);
    const conn = this.conn;
    this.conn = null;
    this.pubChannel = null;
    conn?.close().catch(() => undefined);
    this.opts.onFatal?.(err);
    return err;
  }

  /** A channel's or the connection's error: an access refusal stops the bus, anything else is logged (the reconnection follows). */
  private onChannelError(err: unknown, what: string, extra: Record<string, unknown> = {}): void {
    if (isAccessRefused(err)) this.refuse(err);
    else this.logger.warn({ err, ...extra }, what);
  }

  private connectSoon(delay: number): void {
    if (this.closed || this.refused || this.reconnectTimer) return;
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      this.connecting = this.connect().catch(() => undefined);
    }, delay);
  }

  private async connect(): Promise<void> {
    let conn: amqp.ChannelModel | null = null;
    try {
      conn = await amqp.connect(withHeartbeat(this.opts.url, this.opts.heartbeat ?? 10));
      if (this.closed) {
        await conn.close().catch(() => undefined);
        return;
      }
      conn.on('error', (err) => this.onChannelError(err, 'RabbitMQ connection error'));
      const c = conn;
      conn.on('close', () => this.onClose(c));
      const ch = await conn.createConfirmChannel();
      ch.on('error', (err) => this.onChannelError(err, 'RabbitMQ publish channel error'));
      ch.on('close', () => {
        // A channel-level error closes only the channel: drop the connection so everything is rebuilt.
        if (this.conn === c && !this.closed) c.close().catch(() => undefined);
      });
      await ch.assertExchange(this.exchange, 'topic', { durable: true });
      await ch.assertExchange(this.deadLetterExchange, 'direct', { durable: true });
      this.conn = conn;
      for (const sub of this.subs) await this.setupConsumer(conn, sub);
      this.pubChannel = ch;
      if (this.failures > 0) this.logger.info({ exchange: this.exchange }, 'reconnected to RabbitMQ');
      else this.logger.info({ exchange: this.exchange }, 'connected to RabbitMQ');
      this.failures = 0;
      for (const w of this.waiters.splice(0)) w.resolve();
    } catch (err) {
      this.pubChannel = null;
      if (conn) {
        if (this.conn === conn) this.conn = null;
        await conn.close().catch(() => undefined);
      }
      if (this.closed || this.refused) return;
      if (isAccessRefused(err)) {
        this.refuse(err);
        return;
      }
      this.failures++;
      const min = this.opts.reconnectMinMs ?? 200;
      const max = this.opts.reconnectMaxMs ?? 10_000;
      const base = Math.min(max, min * 2 ** (this.failures - 1));
      const delay = Math.round(base * (0.8 + Math.random() * 0.4));
      this.logger.warn({ err: (err as Error).message, attempt: this.failures, delay }, 'RabbitMQ connection failed; retrying');
      this.connectSoon(delay);
    }
  }

  private onClose(conn: amqp.ChannelModel): void {
    if (this.conn !== conn) return;
    this.conn = null;
    this.pubChannel = null;
    this.consumerChannels.length = 0;
    if (this.closed) return;
    this.logger.warn({}, 'RabbitMQ connection lost; reconnecting');
    this.failures = Math.max(this.failures, 1);
    this.connectSoon(this.opts.reconnectMinMs ?? 200);
  }

  private async setupConsumer(conn: amqp.ChannelModel, sub: Subscription): Promise<void> {
    if (sub.conn === conn) return;
    sub.conn = conn;
    try {
      await this.declareAndConsume(conn, sub);
    } catch (err) {
      sub.conn = null;
      throw err;
    }
  }

  private async declareAndConsume(conn: amqp.ChannelModel, sub: Subscription): Promise<void> {
    const { main, retry, dead } = this.queueNames(sub.service);
    const ch = await conn.createConfirmChannel();
    ch.on('error', (err) => this.onChannelError(err, 'RabbitMQ consumer channel error', { queue: main }));
    const declare = (queue: string, options: amqp.Options.AssertQueue) => ch.assertQueue(queue, { durable: true, ...options }).catch((err) => Promise.reject(queueConflict(err, queue)));
    await declare(main, { deadLetterExchange: this.deadLetterExchange, deadLetterRoutingKey: main, arguments: { ...QUORUM, 'x-delivery-limit': DELIVERY_LIMIT } });
    await declare(dead, { arguments: DEAD_LETTER_QUEUE_ARGS });
    await ch.bindQueue(dead, this.deadLetterExchange, main);
    await declare(retry, { deadLetterExchange: '', deadLetterRoutingKey: main, arguments: QUORUM });
    for (const p of sub.patterns) await ch.bindQueue(main, this.exchange, p);
    await ch.prefetch(sub.opts.prefetch);
    const { consumerTag } = await ch.consume(main, (msg) => {
      if (!msg) return; // consumer cancelled by the broker (queue deleted); the reconnection re-subscribes
      const p = this.handle(ch, sub, msg).catch((err) => this.logger.error({ err, queue: main }, 'event delivery failed'));
      this.inFlight.add(p);
      p.finally(() => this.inFlight.delete(p));
    }, { noAck: false });
    this.consumerChannels.push({ ch, tag: consumerTag });
  }

  /**
   * The properties of a copy this bus publishes (retry, dead letter, replay): `user_id` is this
   * connection's user (RabbitMQ validates it), the original publisher travels in `x-helpdesk-publisher`.
   */
  private copyProperties(props: amqp.MessageProperties, headers: Record<string, unknown>): amqp.Options.Publish {
    const publisher = effectivePublisher(props.userId, props.headers ?? {}, this.publisherCheck);
    const { [PUBLISHER_HEADER]: _carried, ...rest } = headers;
    return { ...props, persistent: true, userId: this.user, headers: publisher === undefined ? rest : { ...rest, [PUBLISHER_HEADER]: publisher } };
  }

  /** A copy with the error to the dead-letter queue, then ack; the plain dlx route when the copy is not confirmed. */
  private async deadLetter(ch: amqp.ConfirmChannel, sub: Subscription, msg: amqp.ConsumeMessage, err: unknown): Promise<void> {
    const error = (err instanceof Error ? err.message : String(err)).slice(0, 1000);
    try {
      await new Promise<void>((resolve, reject) =>
        ch.sendToQueue(this.queueNames(sub.service).dead, msg.content, this.copyProperties(msg.properties, { ...(msg.properties.headers ?? {}), [ERROR_HEADER]: error }), (e) => (e ? reject(e) : resolve())),
      );
      ch.ack(msg);
    } catch {
      try {
        ch.nack(msg, false, false);
      } catch {
        /* channel gone: the broker redelivers, and the last attempt dead-letters again */
      }
    }
  }

  private async handle(ch: amqp.ConfirmChannel, sub: Subscription, msg: amqp.ConsumeMessage): Promise<void> {
    const { main, retry } = this.queueNames(sub.service);
    const headers = msg.properties.headers ?? {};
    const attempt = Number(headers[ATTEMPT_HEADER]) || 1;
    const parsed = parseDelivery(msg.content.toString('utf8'));
    if (parsed.error !== undefined) {
      this.logger.error({ queue: main, messageId: msg.properties.messageId, reason: parsed.error }, 'unparseable event dead-lettered');
      consumerDeliveries.inc({ queue: main, outcome: 'dead_lettered' });
      await this.deadLetter(ch, sub, msg, new Error(parsed.error));
      return;
    }
    const event = frozenEvent(parsed.event);
    const refusal = ownershipRefusal(event.type, effectivePublisher(msg.properties.userId, headers, this.publisherCheck), this.publisherCheck);
    if (refusal) {
      this.logger.error({ eventId: event.id, type: event.type, queue: main, userId: msg.properties.userId, reason: refusal }, 'event refused: its publisher does not own its type; dead-lettered');
      consumerDeliveries.inc({ queue: main, outcome: 'dead_lettered' });
      await this.deadLetter(ch, sub, msg, new Error(refusal));
      return;
    }
    if (msg.fields.redelivered || attempt > 1) consumerRedeliveries.inc({ queue: main });
    const started = process.hrtime.bigint();
    const timed = (outcome: string) => consumerProcessingDuration.observe({ queue: main, type: event.type, outcome }, Number(process.hrtime.bigint() - started) / 1e9);
    const span = tracer.startSpan(`${main} process`, {
      kind: SpanKind.CONSUMER,
      attributes: { 'messaging.system': 'rabbitmq', 'messaging.destination.name': main, 'messaging.rabbitmq.destination.routing_key': event.type, 'messaging.message.id': event.id, 'helpdesk.attempt': attempt },
    }, extractTraceContext(headers));
    try {
      await context.with(trace.setSpan(extractTraceContext(headers), span), () =>
        sub.handler(event, { redelivered: msg.fields.redelivered || attempt > 1, attempt }),
      );
      span.end();
      ch.ack(msg);
      consumerDeliveries.inc({ queue: main, outcome: 'acked' });
      timed('acked');
    } catch (err) {
      span.recordException(err as Error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error)?.message });
      span.end();
      if (attempt >= sub.opts.maxAttempts) {
        this.logger.error({ err, eventId: event.id, queue: main, attempt }, 'event dead-lettered after the last attempt');
        consumerDeliveries.inc({ queue: main, outcome: 'dead_lettered' });
        timed('dead_lettered');
        await this.deadLetter(ch, sub, msg, err);
        return;
      }
      consumerDeliveries.inc({ queue: main, outcome: 'retried' });
      timed('retried');
      const delay = retryDelay(attempt, sub.opts.retryDelayMs);
      this.logger.warn({ err, eventId: event.id, queue: main, attempt, delay }, 'event handler failed; retrying');
      try {
        await new Promise<void>((resolve, reject) =>
          ch.sendToQueue(retry, msg.content, {
            ...this.copyProperties(msg.properties, { ...headers, [ATTEMPT_HEADER]: attempt + 1 }),
            expiration: String(delay),
          }, (e) => (e ? reject(e) : resolve())),
        );
        ch.ack(msg);
      } catch (e) {
        // The copy was not confirmed: leave the original to the broker (requeued when the channel closes).
        this.logger.warn({ err: e, eventId: event.id }, 'retry copy not confirmed; message will be redelivered');
        try {
          ch.nack(msg, false, true);
        } catch {
          /* channel gone: the broker requeues unacked messages */
        }
      }
    }
  }
}
