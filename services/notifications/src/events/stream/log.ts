import type { EventAccess, EventEnvelope } from '@helpdesk/contracts';
import { eventAccess, STREAM_RETENTION_MS } from '@helpdesk/contracts';

/**
 * The stream's retained log (docs/adr/0021): one ordered log per team and partition, with Redis
 * Streams' ids (`<ms>-<seq>`), kept for the retention. The embedded log lives in this process; the
 * Redis log (redis-log.ts) is shared by every replica.
 */
export interface LogEntry {
  id: string;
  type: string;
  /** The frame's `data:` line: the webhook delivery body of the event. */
  data: string;
  /**
   * Who may read it (docs/adr/0066), fixed when it is appended so that a stream checks it without
   * parsing `data`; absent on entries appended before it was kept (accessOf reads `data` then).
   */
  access?: EventAccess | null;
}

/** Who may read an entry. */
export function accessOf(e: LogEntry): EventAccess | null {
  if (e.access !== undefined) return e.access;
  return eventAccess(e.type, (JSON.parse(e.data) as { data?: unknown }).data);
}

export interface Replay {
  entries: LogEntry[];
  /** Set when the client's id is older than the log: the first id still kept (or null when nothing is). */
  gap: { oldestAvailableId: string | null } | null;
}

export interface LiveSubscription {
  /** Replays what follows `lastId` (null: nothing), then everything appended later goes to `onEntry`, in order, once. */
  close(): void;
}

export interface EventLog {
  /** Appends an event once (a redelivered event id is ignored). */
  append(event: StreamableEvent): Promise<void>;
  /** Replay after `lastId` then live entries, without a gap or a duplicate between the two. */
  subscribe(teamId: string, mode: string, lastId: string | null, onReplay: (r: Replay) => void, onEntry: (e: LogEntry) => void): Promise<LiveSubscription>;
  close(): Promise<void>;
}

/** What goes in the log: a bus event, or the webhooks service's test event (`test: true`). */
export type StreamableEvent = Pick<EventEnvelope, 'id' | 'type' | 'teamId' | 'mode' | 'occurredAt' | 'data'> & { test?: boolean };

/**
 * What the stream carries for a bus event: the event itself, except that `webhook.test_triggered`
 * becomes the test event trigger-test sent to the webhooks (its id, type and time, `test: true`,
 * empty data), the same body the webhooks received.
 */
export function streamableOf(event: EventEnvelope): StreamableEvent {
  if (event.type !== 'webhook.test_triggered') return event;
  const test = event.data as { event: string; eventId: string; createdAt: string };
  return { id: test.eventId, type: test.event, teamId: event.teamId, mode: event.mode, occurredAt: test.createdAt, data: {}, test: true };
}

/** The frame's data: the same bytes a webhook delivery of this event carries. */
export const frameData = (e: StreamableEvent) =>
  JSON.stringify({ id: e.id, type: e.type, createdAt: e.occurredAt, teamId: e.teamId, mode: e.mode, ...(e.test ? { test: true } : {}), data: e.data });

/** Compares the decimal numbers `a[from..aEnd)` and `b[from2..bEnd)` (no leading zeros, as the log writes them). */
function compareDigits(a: string, aFrom: number, aEnd: number, b: string, bFrom: number, bEnd: number): number {
  if (aEnd - aFrom !== bEnd - bFrom) return aEnd - aFrom - (bEnd - bFrom);
  for (let i = 0; i < aEnd - aFrom; i++) {
    const d = a.charCodeAt(aFrom + i) - b.charCodeAt(bFrom + i);
    if (d !== 0) return d;
  }
  return 0;
}

/** An id with a number written with a leading zero (`<ms>-<seq>` split at `at`). */
const padded = (x: string, at: number) => (x.charCodeAt(0) === 48 && at > 1) || (x.charCodeAt(at + 1) === 48 && x.length > at + 2);

/**
 * Compares two `<ms>-<seq>` ids (negative, 0, positive). Every open stream compares each entry it
 * is handed with the last it sent, so this reads the digits in place rather than splitting
 * (docs/adr/0073); an id with a leading zero (only a client's) is compared by its numbers.
 */
export function compareIds(a: string, b: string): number {
  if (a === b) return 0;
  const ai = a.indexOf('-');
  const bi = b.indexOf('-');
  if (padded(a, ai) || padded(b, bi)) {
    const [am, as] = a.split('-').map(Number);
    const [bm, bs] = b.split('-').map(Number);
    return am !== bm ? am - bm : as - bs;
  }
  return compareDigits(a, 0, ai, b, 0, bi) || compareDigits(a, ai + 1, a.length, b, bi + 1, b.length);
}

export const logKey = (teamId: string, mode: string) => `stream:${teamId}:${mode}`;

interface Ring {
  entries: LogEntry[];
  /** The newest id dropped by retention: a client id below it has missed something. */
  trimmedThrough: string | null;
  listeners: Set<(e: LogEntry) => void>;
}

/** The in-process log: an array per team and partition, trimmed to the retention (and a size bound) on append. */
export class EmbeddedEventLog implements EventLog {
  private readonly rings = new Map<string, Ring>();
  private readonly seen = new Map<string, number>();
  private lastMs = 0;
  private seq = 0;

  constructor(private readonly opts: { retentionMs?: number; maxEntriesPerStream?: number; now?: () => number } = {}) {}

  private ring(key: string): Ring {
    let r = this.rings.get(key);
    if (!r) this.rings.set(key, (r = { entries: [], trimmedThrough: null, listeners: new Set() }));
    return r;
  }

  private nextId(now: number): string {
    if (now > this.lastMs) {
      this.lastMs = now;
      this.seq = 0;
    } else this.seq++;
    return `${this.lastMs}-${this.seq}`;
  }

  async append(event: StreamableEvent): Promise<void> {
    const now = (this.opts.now ?? Date.now)();
    const retention = this.opts.retentionMs ?? STREAM_RETENTION_MS;
    for (const [id, at] of this.seen) {
      if (at > now - retention) break;
      this.seen.delete(id);
    }
    if (this.seen.has(event.id)) return;
    this.seen.set(event.id, now);
    const ring = this.ring(logKey(event.teamId, event.mode));
    const entry: LogEntry = { id: this.nextId(now), type: event.type, data: frameData(event), access: eventAccess(event.type, event.data) };
    ring.entries.push(entry);
    const max = this.opts.maxEntriesPerStream ?? 100_000;
    let drop = 0;
    while (drop < ring.entries.length && (ring.entries.length - drop > max || Number(ring.entries[drop].id.split('-')[0]) <= now - retention)) drop++;
    if (drop) {
      ring.trimmedThrough = ring.entries[drop - 1].id;
      ring.entries.splice(0, drop);
    }
    for (const l of ring.listeners) l(entry);
  }

  async subscribe(teamId: string, mode: string, lastId: string | null, onReplay: (r: Replay) => void, onEntry: (e: LogEntry) => void) {
    const ring = this.ring(logKey(teamId, mode));
    // Synchronous from here to the listener's registration: nothing can be appended in between.
    onReplay(replayFrom(ring.entries, ring.trimmedThrough, lastId));
    ring.listeners.add(onEntry);
    return { close: () => void ring.listeners.delete(onEntry) };
  }

  async close(): Promise<void> {
    for (const r of this.rings.values()) r.listeners.clear();
  }
}

/** What follows `lastId` in `entries` (ordered), and whether retention dropped some of it. */
export function replayFrom(entries: LogEntry[], trimmedThrough: string | null, lastId: string | null): Replay {
  if (lastId === null) return { entries: [], gap: null };
  const gap = trimmedThrough !== null && compareIds(lastId, trimmedThrough) < 0 ? { oldestAvailableId: entries[0]?.id ?? null } : null;
  let lo = 0;
  let hi = entries.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (compareIds(entries[mid].id, lastId) <= 0) lo = mid + 1;
    else hi = mid;
  }
  return { entries: entries.slice(lo), gap };
}
