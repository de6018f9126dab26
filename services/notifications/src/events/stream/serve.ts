import type { Response } from 'express';
import { compareIds, type EventLog, type LogEntry, type Replay } from './log';
import type { OpenStreams } from './open-streams';

export interface StreamSettings {
  /** A `: heartbeat` comment this often (15 s), so proxies and clients see a live connection. */
  heartbeatMs: number;
  /** A client with more than this waiting in its socket buffer is disconnected (1 MiB). */
  maxBufferedBytes: number;
  /** The process's open streams, ended at once when the service stops (./open-streams.ts). */
  open?: OpenStreams;
}

/**
 * The heartbeats of this process's open streams (docs/adr/0073): one timer per period for all the
 * streams that share it (not one per stream), running only while one is open. A stream gets its
 * first `: heartbeat` within one period of opening, then one every period.
 */
class Heartbeats {
  private readonly byPeriod = new Map<number, { timer: NodeJS.Timeout; beats: Set<() => void> }>();

  add(periodMs: number, beat: () => void): () => void {
    let period = this.byPeriod.get(periodMs);
    if (!period) {
      const beats = new Set<() => void>();
      const timer = setInterval(() => {
        for (const b of beats) b();
      }, periodMs);
      timer.unref();
      this.byPeriod.set(periodMs, (period = { timer, beats }));
    }
    const { beats, timer } = period;
    beats.add(beat);
    return () => {
      beats.delete(beat);
      if (beats.size === 0 && this.byPeriod.get(periodMs)?.beats === beats) {
        clearInterval(timer);
        this.byPeriod.delete(periodMs);
      }
    };
  }
}

const heartbeats = new Heartbeats();

/** The reconnection delay the first frame tells EventSource clients to use. */
export const RETRY_MS = 3_000;

const HEARTBEAT = ': heartbeat\n\n';

/**
 * Serves one team and partition's log as server-sent events on `res`: replay after `lastId`, then live
 * entries, each id once and in order; `frame` turns an entry into its frame (null: not this client's);
 * the first frame is `retry:` (plus `head`), a heartbeat comment keeps the connection seen, and a slow
 * reader is dropped rather than buffered. The team's stream and a widget conversation's (docs/adr/0040).
 */
export async function streamLog(
  log: EventLog,
  settings: StreamSettings,
  scope: { teamId: string; mode: string },
  lastId: string | null,
  res: Response,
  opts: { head?: (replay: Replay) => string; frame: (e: LogEntry) => string | Buffer | null },
): Promise<void> {
  // Before anything is read: a service that is stopping refuses new streams (503).
  settings.open?.add(res);
  let open = true;
  // Ids only go up on one connection: whatever the log hands over twice is sent once.
  let lastSent = lastId;
  const send = (chunk: string | Buffer) => {
    if (!open) return;
    res.write(chunk);
    // A slow reader: drop it rather than hold its backlog (it reconnects with its last id).
    if (res.writableLength > settings.maxBufferedBytes) res.destroy();
  };
  const sendEntry = (e: LogEntry) => {
    if (lastSent !== null && compareIds(e.id, lastSent) <= 0) return;
    lastSent = e.id;
    const frame = opts.frame(e);
    if (frame !== null) send(frame);
  };
  const sub = await log.subscribe(
    scope.teamId,
    scope.mode,
    lastId,
    (replay) => {
      res.status(200);
      res.setHeader('content-type', 'text/event-stream; charset=utf-8');
      res.setHeader('cache-control', 'no-cache, no-transform');
      res.setHeader('x-accel-buffering', 'no');
      res.flushHeaders();
      send(`retry: ${RETRY_MS}\n\n${opts.head?.(replay) ?? ''}`);
      for (const e of replay.entries) sendEntry(e);
    },
    sendEntry,
  );
  const stopHeartbeat = heartbeats.add(settings.heartbeatMs, () => send(HEARTBEAT));
  const end = () => {
    if (!open) return;
    open = false;
    stopHeartbeat();
    sub.close();
  };
  res.on('close', end);
  if (res.destroyed) end();
}
