import { mayRead, NOTIFICATIONS, STREAM_ID_RE, streamPatterns, subscribes, unreadablePattern, type EventReader } from '@helpdesk/contracts';
import { ApiError, handlersFor } from '@helpdesk/kit';
import { accessOf, type EventLog, type LogEntry } from './log';
import { streamLog, type StreamSettings } from './serve';

/**
 * `?types=` → the webhook patterns it lists: 400 `parameter_invalid` when one is not a pattern, 403
 * `insufficient_permissions` when one asks only for events the key may not read (docs/adr/0066);
 * param `types` both.
 */
function parseTypes(types: string | undefined, reader: EventReader): string[] {
  const { patterns, problem } = streamPatterns(types);
  if (problem !== null) throw new ApiError('parameter_invalid', problem, 'types');
  const unreadable = unreadablePattern(patterns, reader);
  if (unreadable !== null) throw new ApiError('insufficient_permissions', unreadable, 'types');
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

/**
 * An entry's frame, encoded once for every stream that sends it (docs/adr/0073): the log hands the
 * same entry object to all of a process's subscribers, and a socket takes the same bytes from each.
 */
const frames = new WeakMap<LogEntry, Buffer>();
function eventFrame(e: LogEntry): Buffer {
  let frame = frames.get(e);
  if (!frame) frames.set(e, (frame = Buffer.from(`id: ${e.id}\nevent: ${e.type}\ndata: ${e.data}\n\n`)));
  return frame;
}

/** `/teams/{teamId}/events/stream`: the team's events as server-sent events (docs/adr/0021). */
export const eventStreamHandlers = (log: EventLog, settings: StreamSettings) =>
  handlersFor(NOTIFICATIONS)({
    streamEvents: async ({ ctx, query, req, res }) => {
      // The caller's key reads as itself: its effective permissions (role and scopes), its member, its id.
      const reader: EventReader = ctx;
      const patterns = parseTypes(query.types, reader);
      const lastId = lastIdOf(req.headers['last-event-id'], query.lastEventId);
      await streamLog(log, settings, ctx, lastId, res, {
        head: (replay) =>
          replay.gap ? `event: stream.gap\ndata: ${JSON.stringify({ lastEventId: lastId, oldestAvailableId: replay.gap.oldestAvailableId })}\n\n` : '',
        // The key's permissions decide first; the patterns only narrow what it may read.
        frame: (e) => (subscribes(patterns, e.type) && mayRead(accessOf(e), reader) ? eventFrame(e) : null),
      });
    },
  });
