import { Redis } from 'ioredis';
import { eventAccess, STREAM_RETENTION_MS, type Permission } from '@helpdesk/contracts';
import type { Logger } from '@helpdesk/kit';
import { compareIds, frameData, logKey, type EventLog, type LogEntry, type Replay, type StreamableEvent } from './log';

/**
 * The log in Redis Streams (docs/adr/0021): `XADD stream:{teamId}:{mode} MINID <now - retention>`,
 * once per event id (a `SET NX` marker in the same script). Live delivery reads the stream itself
 * (one blocking `XREAD` per stream and process, shared by its subscribers), so every replica sees
 * every event whichever replica consumed it. An idle stream's key expires with the retention.
 */
const APPEND = `
if redis.call('SET', KEYS[2], '1', 'NX', 'PX', ARGV[1]) then
  local id = redis.call('XADD', KEYS[1], 'MINID', ARGV[2], '*', 'type', ARGV[3], 'data', ARGV[4], 'permission', ARGV[5], 'member', ARGV[6])
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  return id
end
return false`;

/** The `permission` field of an entry nobody may read (a type the catalog does not have). */
const NOBODY = '!';

interface Reader {
  conn: Redis;
  cursor: string;
  listeners: Set<(e: LogEntry) => void>;
  ready: Promise<void>;
  stopped: boolean;
}

const toEntry = ([id, fields]: [string, string[]]): LogEntry => {
  const f: Record<string, string> = {};
  for (let i = 0; i < fields.length; i += 2) f[fields[i]] = fields[i + 1];
  // Who may read it (docs/adr/0066): '' stands for null, `!` for nobody; entries from before it have neither field.
  const access = f.permission === undefined ? undefined : f.permission === NOBODY ? null : { permission: (f.permission || null) as Permission | null, member: f.member || null };
  return { id, type: f.type, data: f.data, access };
};

export class RedisEventLog implements EventLog {
  private readonly redis: Redis;
  private readonly readers = new Map<string, Reader>();

  private readonly prefix: string;
  private readonly retentionMs: number;

  constructor(private readonly url: string, private readonly logger: Logger, opts: { keyPrefix?: string; retentionMs?: number } = {}) {
    this.redis = new Redis(url, { maxRetriesPerRequest: 2 });
    this.prefix = opts.keyPrefix ?? '';
    this.retentionMs = opts.retentionMs ?? STREAM_RETENTION_MS;
  }

  async append(event: StreamableEvent): Promise<void> {
    const minId = `${Date.now() - this.retentionMs}-0`;
    const access = eventAccess(event.type, event.data);
    await this.redis.eval(
      APPEND, 2, this.prefix + logKey(event.teamId, event.mode), `${this.prefix}streamed:${event.id}`,
      String(this.retentionMs), minId, event.type, frameData(event), access ? (access.permission ?? '') : NOBODY, access?.member ?? '',
    );
  }

  async subscribe(teamId: string, mode: string, lastId: string | null, onReplay: (r: Replay) => void, onEntry: (e: LogEntry) => void) {
    const key = this.prefix + logKey(teamId, mode);
    const reader = this.reader(key);
    await reader.ready;
    // Live entries that arrive while the replay is read wait here, then only those after it go out.
    let pending: LogEntry[] | null = [];
    const listener = (e: LogEntry) => (pending ? pending.push(e) : onEntry(e));
    reader.listeners.add(listener);
    try {
      const replay = lastId === null ? { entries: [], gap: null } : await this.replay(key, lastId);
      onReplay(replay);
      const after = replay.entries.at(-1)?.id ?? lastId;
      const live: LogEntry[] = pending;
      pending = null;
      for (const e of live) if (after === null || compareIds(e.id, after) > 0) onEntry(e);
    } catch (err) {
      this.unsubscribe(key, listener);
      throw err;
    }
    return { close: () => this.unsubscribe(key, listener) };
  }

  private async replay(key: string, lastId: string): Promise<Replay> {
    const [info, rows] = await Promise.all([
      this.redis.call('XINFO', 'STREAM', key).catch(() => null) as Promise<unknown[] | null>,
      this.redis.xrange(key, `(${lastId}`, '+'),
    ]);
    let gap: Replay['gap'] = null;
    if (info) {
      const f: Record<string, unknown> = {};
      for (let i = 0; i < info.length; i += 2) f[String(info[i])] = info[i + 1];
      const deleted = String(f['max-deleted-entry-id'] ?? '0-0');
      const first = f['first-entry'] as [string, string[]] | null;
      if (deleted !== '0-0' && compareIds(lastId, deleted) < 0) gap = { oldestAvailableId: first ? first[0] : null };
    }
    return { entries: (rows as [string, string[]][]).map(toEntry), gap };
  }

  private reader(key: string): Reader {
    const existing = this.readers.get(key);
    if (existing) return existing;
    const conn = new Redis(this.url, { maxRetriesPerRequest: null });
    const reader: Reader = { conn, cursor: '0-0', listeners: new Set(), stopped: false, ready: Promise.resolve() };
    reader.ready = (async () => {
      // Start after the newest entry: older ones are the replay's.
      const last = (await this.redis.xrevrange(key, '+', '-', 'COUNT', 1))[0];
      if (last) reader.cursor = last[0];
      void this.readLoop(key, reader);
    })();
    this.readers.set(key, reader);
    return reader;
  }

  private async readLoop(key: string, reader: Reader): Promise<void> {
    while (!reader.stopped) {
      try {
        const res = (await reader.conn.xread('COUNT', 1000, 'BLOCK', 5000, 'STREAMS', key, reader.cursor)) as [string, [string, string[]][]][] | null;
        for (const [, rows] of res ?? []) {
          for (const row of rows) {
            const entry = toEntry(row);
            reader.cursor = entry.id;
            for (const l of reader.listeners) l(entry);
          }
        }
      } catch (err) {
        if (reader.stopped) return;
        this.logger.warn({ err, key }, 'event stream read failed; retrying');
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  }

  private unsubscribe(key: string, listener: (e: LogEntry) => void): void {
    const reader = this.readers.get(key);
    if (!reader) return;
    reader.listeners.delete(listener);
    if (reader.listeners.size === 0) {
      // The last subscriber left: stop the blocking read (disconnect interrupts it).
      reader.stopped = true;
      this.readers.delete(key);
      reader.conn.disconnect();
    }
  }

  async close(): Promise<void> {
    for (const [key, r] of this.readers) {
      r.stopped = true;
      r.conn.disconnect();
      this.readers.delete(key);
    }
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
