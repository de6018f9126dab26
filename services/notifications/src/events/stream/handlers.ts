import { NOTIFICATIONS, STREAM_ID_RE, streamPatterns, subscribes } from '@helpdesk/contracts';
import { ApiError, handlersFor } from '@helpdesk/kit';
import { compareIds, type EventLog, type LogEntry } from './log';

export interface StreamSettings {
  /** A `: heartbeat` comment this often (15 s), so proxies and clients see a live connection. */
  heartbeatMs: number;
  /** A client with more than this waiting in its socket buffer is disconnected (1 MiB). */
  maxBufferedBytes: number;
}

/** The reconnection delay the first frame tells EventSource clients to use. */
export const RETRY_MS = 3_000;

/** `?types=` → the webhook patterns it lists, or 400 `parameter_invalid` (param `types`). */
function parseTypes(types: string | undefined): string[] {
  const { patterns, problem } = streamPatterns(types);
  if (problem !== null) throw new ApiError('parameter_invalid', problem, 'types');
  return patterns;
}

/** The `Last-Event-ID` header wins over `?lastEventId=` (EventSource sends the header on reconnect). */
function lastIdOf(header: string | string[] | undefined, query: string | undefined): string | null {
  if (typeof header === 'string' && header !== '') {
    if (!STREAM_ID_RE.test(header)) throw new ApiError('parameter_invalid', 'Last-Event-ID must be a stream id (<ms>-<seq>) from a frame\'s id: line.', 'Last-Event-ID');
    return header;
  }
  return query ?? null;
}

const eventFrame = (e: LogEntry) => `id: ${e.id}\nevent: ${e.type}\ndata: ${e.data}\n\n`;

/** `/teams/{teamId}/events/stream`: the team's events as server-sent events (docs/adr/0021). */
export const eventStreamHandlers = (log: EventLog, settings: StreamSettings) =>
  handlersFor(NOTIFICATIONS)({
    streamEvents: async ({ ctx, query, req, res }) => {
      const patterns = parseTypes(query.types);
      const lastId = lastIdOf(req.headers['last-event-id'], query.lastEventId);
      let open = true;
      // Ids only go up on one connection: whatever the log hands over twice is sent once.
      let lastSent = lastId;
      const sendEvent = (e: LogEntry) => {
        if (lastSent !== null && compareIds(e.id, lastSent) <= 0) return;
        lastSent = e.id;
        if (subscribes(patterns, e.type)) send(eventFrame(e));
      };
      const send = (chunk: string) => {
        if (!open) return;
        res.write(chunk);
        // A slow reader: drop it rather than hold its backlog (it reconnects with its last id).
        if (res.writableLength > settings.maxBufferedBytes) res.destroy();
      };
      const sub = await log.subscribe(
        ctx.teamId,
        ctx.mode,
        lastId,
        (replay) => {
          res.status(200);
          res.setHeader('content-type', 'text/event-stream; charset=utf-8');
          res.setHeader('cache-control', 'no-cache, no-transform');
          res.setHeader('x-accel-buffering', 'no');
          res.flushHeaders();
          let head = `retry: ${RETRY_MS}\n\n`;
          if (replay.gap) head += `event: stream.gap\ndata: ${JSON.stringify({ lastEventId: lastId, oldestAvailableId: replay.gap.oldestAvailableId })}\n\n`;
          send(head);
          for (const e of replay.entries) sendEvent(e);
        },
        sendEvent,
      );
      const heartbeat = setInterval(() => send(': heartbeat\n\n'), settings.heartbeatMs);
      heartbeat.unref();
      const end = () => {
        open = false;
        clearInterval(heartbeat);
        sub.close();
      };
      res.on('close', end);
      if (res.destroyed) end();
    },
  });
