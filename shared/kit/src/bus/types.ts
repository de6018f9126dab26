import type pino from 'pino';
import { eventEnvelopeSchema, parseEvent, type EventEnvelope } from '@helpdesk/contracts';

/** The few logger methods the bus and the outbox use (pino-compatible; kit's `Logger` satisfies it). */
export type BusLogger = Pick<pino.Logger, 'info' | 'warn' | 'error' | 'debug'>;

export interface ConsumeContext {
  /** True when this event was delivered before (a retry, or a broker redelivery after a lost ack). */
  redelivered: boolean;
  /** 1-based delivery attempt for this consumer. */
  attempt: number;
}

export type EventHandler = (event: EventEnvelope, ctx: ConsumeContext) => Promise<void>;

export interface SubscribeOptions {
  /** Deliveries in flight per consumer (default 32). */
  prefetch?: number;
  /** Attempts before the event is dead-lettered (default 5). */
  maxAttempts?: number;
  /** Base backoff: attempt n waits `retryDelayMs * 2^(n-1)` (capped at 60 s) before attempt n+1 (default 1000). */
  retryDelayMs?: number;
}

export interface PublishOptions {
  /**
   * Trace headers per event (same index as `events`), e.g. captured by the outbox when the event was
   * emitted inside a request. Missing entries use the active context.
   */
  traceHeaders?: Array<Record<string, string> | undefined>;
  /**
   * The service publishing (its outbox relay). The in-process bus refuses, at each consumer, an event
   * whose type this service does not own (bus/ownership.ts); on RabbitMQ the connection's user is the
   * publisher (`user_id`) and this is not needed.
   */
  publisher?: string;
}

export interface EventBus {
  /**
   * Resolves only when the broker has confirmed every event (publisher confirms); rejects if any is
   * not confirmed (broker down) so the caller (outbox relay) retries later.
   */
  publish(events: EventEnvelope[], opts?: PublishOptions): Promise<void>;
  /**
   * `service` names the durable queue (`helpdesk.<service>`); patterns are topic patterns bound to it.
   * Handler success = ack; throw = retry with backoff up to maxAttempts, then dead-letter.
   * One `subscribe` per service: a second call for the same service adds a competing consumer on the
   * same queue (and its patterns to the queue's bindings), as it would on RabbitMQ.
   */
  subscribe(service: string, patterns: string[], handler: EventHandler, opts?: SubscribeOptions): Promise<void>;
  close(): Promise<void>;
  /** Readiness: false while the broker channel is down (an outbox waits, consumers get nothing). */
  ready?(): boolean;
  /**
   * True when events never leave this process (the in-process bus): every consumer of a service's
   * queue is in this process, so no other replica of it can exist (docs/adr/0045).
   */
  readonly processLocal?: boolean;
  /** The operator's view of dead letters (docs/adr/0039); absent on test doubles. */
  deadLetterQueue?: DeadLetterQueue;
}

/** One dead-lettered event as the operator CLI lists it. */
export interface DeadLetterRecord {
  service: string;
  eventId: string;
  type: string;
  teamId: string | null;
  /**
   * Why it was dead-lettered: the handler's last error message; or, when no handler ran,
   * `parse error: …` (not JSON), `schema error at <path>: …` (the catalog refused it), `not-owner: …`
   * (its publisher does not own its type), `dead-lettered by RabbitMQ (<reason>): …`.
   */
  error: string;
  attempts: number;
}

/**
 * A service's dead letters: list, replay (back to that service's queue only, attempt 1) or discard.
 * `eventIds` null = every dead letter of the service. Both return what they acted on.
 */
export interface DeadLetterQueue {
  list(service: string): Promise<DeadLetterRecord[]>;
  replay(service: string, eventIds: string[] | null): Promise<DeadLetterRecord[]>;
  discard(service: string, eventIds: string[] | null): Promise<DeadLetterRecord[]>;
}

/** The service has no dead-letter queue (it consumes no events, or never started): `dead-letters` skips it. */
export class NoDeadLetterQueue extends Error {
  constructor(readonly service: string, readonly queue: string) {
    super(`${service} has no dead-letter queue ${queue} (it consumes no events, or has never started)`);
    this.name = 'NoDeadLetterQueue';
  }
}

/** Header of a dead letter: why (the handler's last error, or the parse, schema or ownership failure). */
export const ERROR_HEADER = 'x-helpdesk-error';

/**
 * The parsed event (`parseEvent`: the envelope, then the catalog's payload), or why a message is not
 * one: `parse error: …` (not JSON) or `schema error at <path>: …` (`data.` for the payload's fields).
 */
export function parseDelivery(text: string): { event: EventEnvelope; error?: undefined } | { event?: undefined; error: string } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    return { error: `parse error: ${(err as Error).message ?? String(err)}`.slice(0, 1000) };
  }
  try {
    // One parse of the envelope for every valid delivery (docs/adr/0071); only a refused one is
    // looked at again, to say whether its envelope or its payload is wrong.
    return { event: parseEvent(json) };
  } catch (err) {
    const envelope = eventEnvelopeSchema.safeParse(json);
    if (!envelope.success) return { error: schemaError(envelope.error).slice(0, 1000) };
    return { error: schemaError(err, ['data']).slice(0, 1000) };
  }
}

/** `schema error at data.ticket.title: Invalid input…` from a ZodError (each issue; `prefix` before its path), or the error's message. */
export function schemaError(err: unknown, prefix: string[] = []): string {
  const issues = (err as { issues?: Array<{ path?: PropertyKey[]; message?: string }> })?.issues;
  if (Array.isArray(issues) && issues.length) {
    return issues.map((i) => `schema error at ${[...prefix, ...(i.path ?? []).map(String)].join('.') || '(envelope)'}: ${i.message ?? 'invalid'}`).join('; ');
  }
  return `schema error: ${err instanceof Error ? err.message : String(err)}`;
}

/** The record of a dead-lettered event (the parsed envelope if it parses, else what can be read). */
export function deadLetterRecord(service: string, event: unknown, attempts: number, error: string): DeadLetterRecord {
  const e = (event && typeof event === 'object' ? event : {}) as { id?: unknown; type?: unknown; teamId?: unknown };
  return {
    service,
    eventId: typeof e.id === 'string' ? e.id : '(unparseable)',
    type: typeof e.type === 'string' ? e.type : '(unknown)',
    teamId: typeof e.teamId === 'string' ? e.teamId : null,
    error,
    attempts,
  };
}

export const DEFAULT_PREFETCH = 32;
export const DEFAULT_MAX_ATTEMPTS = 5;
export const DEFAULT_RETRY_DELAY_MS = 1000;
export const MAX_RETRY_DELAY_MS = 60_000;

/** Delay before the attempt after `attempt` (1-based) failed: base, 2×base, 4×base … capped. */
export function retryDelay(attempt: number, baseMs: number): number {
  return Math.min(MAX_RETRY_DELAY_MS, baseMs * 2 ** Math.max(0, attempt - 1));
}

export interface DeadLetter {
  service: string;
  event: unknown;
  attempts: number;
  error: string;
  /** The publishing service, kept for a replay (the ownership check runs again). */
  publisher?: string;
}

/**
 * Freezes an event for its handlers, every level of it: on the memory bus one parsed copy is shared
 * by every queue (docs/adr/0054), so no handler may change what another one reads; the AMQP bus
 * freezes its own copies alike, so a handler that writes into its event fails in both shapes (one process and RabbitMQ).
 */
export function frozenEvent<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const v of Object.values(value)) frozenEvent(v);
    Object.freeze(value);
  }
  return value;
}
