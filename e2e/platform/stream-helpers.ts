/** The event stream's test client (docs/adr/0021): an `eventsource` EventSource that collects frames. */
import { EventSource } from 'eventsource';
import { envelope, ticketFixture } from '@helpdesk/testing';
import { eventually } from './helpdesk-helpers';
import type { Partition } from '@helpdesk/contracts';

export const STREAM_FRAME_TYPES = ['ticket.created', 'ticket.message_added', 'ticket.closed', 'customer.created', 'customer_status.created', 'stream.gap'] as const;

export interface Frame {
  id: string;
  event: string;
  data: any;
}

export const streamPath = (teamId: string) => `/teams/${teamId}/events/stream`;

/**
 * An EventSource on `url` (the stream's full URL); with `key` it sends `Authorization: Bearer <key>`
 * (none: a browser with a stream token in the URL). Collects every frame of STREAM_FRAME_TYPES.
 */
export class StreamClient {
  readonly frames: Frame[] = [];
  readonly es: EventSource;
  opened: Promise<void>;
  failures: { status?: number; message?: string }[] = [];

  constructor(url: string, key: string | null, lastEventId?: string) {
    this.es = new EventSource(url, {
      fetch: (input, init) => {
        const headers = new Headers(init?.headers as Record<string, string>);
        if (key) headers.set('authorization', `Bearer ${key}`);
        // On a reconnection EventSource sends its own Last-Event-ID (the last frame it saw): that one wins.
        if (lastEventId && !headers.has('last-event-id')) headers.set('last-event-id', lastEventId);
        return fetch(input, { ...init, headers });
      },
    });
    for (const type of STREAM_FRAME_TYPES) this.es.addEventListener(type, (m) => this.frames.push({ id: m.lastEventId, event: m.type, data: JSON.parse(m.data) }));
    this.es.addEventListener('error', (e: any) => this.failures.push({ status: e.code, message: e.message }));
    this.opened = new Promise((resolve) => this.es.addEventListener('open', () => resolve(), { once: true }));
    this.es.addEventListener('open', () => this.opens++);
  }

  /** Connections opened so far (EventSource reconnects by itself after a stream ends). */
  opens = 0;

  /** Collects frames of these event types too. */
  collect(types: readonly string[]): this {
    for (const type of types) this.es.addEventListener(type, (m) => this.frames.push({ id: m.lastEventId, event: m.type, data: JSON.parse(m.data) }));
    return this;
  }

  eventIds = () => this.frames.filter((f) => f.event !== 'stream.gap').map((f) => f.data.id);
  close = () => this.es.close();
}

/** `n` ticket.created events of `teamId`'s partition `mode`, as ticketing publishes them. */
export const ticketEvents = (n: number, teamId: string, mode: Partition = 'test') =>
  Array.from({ length: n }, () => envelope('ticket.created', { ticket: ticketFixture(null) }, { teamId, mode }));

/** Waits until `client` has at least `count` frames. */
export function receive(client: StreamClient, count: number, what: string): Promise<Frame[]> {
  return eventually(`${what}: ${count} frames (have ${client.frames.length})`, () => (client.frames.length >= count ? client.frames : null), 30_000);
}

/**
 * `n` customer_status.created events of `teamId`'s partition `mode`: a type that only the stream,
 * webhooks and the audit log consume, so that thousands of them load the stream, not every
 * service's ticket projections (ticket.created feeds five services).
 */
export const statusEvents = (n: number, teamId: string, mode: Partition = 'test') =>
  Array.from({ length: n }, (_, i) =>
    envelope('customer_status.created', { status: { key: `stream_${i}`, label: `Stream ${i}`, color: '#336699', position: i, isProtected: false } }, { teamId, mode }),
  );
