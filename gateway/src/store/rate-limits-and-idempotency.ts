import type Redis from 'ioredis';
import type { SecretBox } from '@helpdesk/kit';

/** One counted request in a fixed window: the count so far (this one included) and when the window ends. */
export interface RateHit {
  count: number;
  resetAtMs: number;
}

/** Fixed-window counters shared by every gateway process (Redis) or by one (memory). */
export interface RateLimitStore {
  hit(key: string, windowMs: number): Promise<RateHit>;
  close(): Promise<void>;
}

/** What an idempotency key maps to: a running request, or the final proxied response. */
export type IdempotencyRecord =
  | { state: 'in_progress'; fingerprint: string }
  | { state: 'done'; fingerprint: string; status: number; contentType: string | null; body: string /* base64 */ };

export interface IdempotencyStore {
  /** Claims the key for `lockMs` when it is free (null = claimed); otherwise the record found. */
  begin(key: string, fingerprint: string, lockMs: number): Promise<IdempotencyRecord | null>;
  /** Stores the final response for `ttlMs` (replaces the in-progress lock). */
  complete(key: string, record: Extract<IdempotencyRecord, { state: 'done' }>, ttlMs: number): Promise<void>;
  /** Frees a claimed key whose request did not run (never reached the service, or answered 429/503). */
  release(key: string): Promise<void>;
  close(): Promise<void>;
}

// ---- memory --------------------------------------------------------------------------------

export class MemoryRateLimitStore implements RateLimitStore {
  private readonly windows = new Map<string, RateHit>();
  private sweepAt = 0;
  async hit(key: string, windowMs: number): Promise<RateHit> {
    const now = Date.now();
    if (now > this.sweepAt) this.sweep(now);
    let w = this.windows.get(key);
    if (!w || w.resetAtMs <= now) {
      w = { count: 0, resetAtMs: now + windowMs };
      this.windows.set(key, w);
    }
    w.count++;
    return { count: w.count, resetAtMs: w.resetAtMs };
  }
  private sweep(now: number) {
    for (const [k, w] of this.windows) if (w.resetAtMs <= now) this.windows.delete(k);
    this.sweepAt = now + 60_000;
  }
  async close(): Promise<void> {
    this.windows.clear();
  }
}

export class MemoryIdempotencyStore implements IdempotencyStore {
  private readonly entries = new Map<string, { record: IdempotencyRecord; expiresAt: number }>();
  private sweepAt = 0;
  async begin(key: string, fingerprint: string, lockMs: number): Promise<IdempotencyRecord | null> {
    const now = Date.now();
    if (now > this.sweepAt) {
      for (const [k, e] of this.entries) if (e.expiresAt <= now) this.entries.delete(k);
      this.sweepAt = now + 60_000;
    }
    const e = this.entries.get(key);
    if (e && e.expiresAt > now) return structuredClone(e.record);
    this.entries.set(key, { record: { state: 'in_progress', fingerprint }, expiresAt: now + lockMs });
    return null;
  }
  async complete(key: string, record: Extract<IdempotencyRecord, { state: 'done' }>, ttlMs: number): Promise<void> {
    this.entries.set(key, { record: structuredClone(record), expiresAt: Date.now() + ttlMs });
  }
  async release(key: string): Promise<void> {
    this.entries.delete(key);
  }
  async close(): Promise<void> {
    this.entries.clear();
  }
}

// ---- Redis ---------------------------------------------------------------------------------

/**
 * INCR and, on the window's first hit, PEXPIRE; then PTTL. One script = one round trip, atomic, so
 * the count is exact under any concurrency and across gateway processes sharing the Redis.
 */
const HIT_SCRIPT = `
local c = redis.call('INCR', KEYS[1])
if c == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local t = redis.call('PTTL', KEYS[1])
if t < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); t = tonumber(ARGV[1]) end
return {c, t}`;

/** GET the key; when absent SET it to the in-progress record with the lock lease. One round trip. */
const BEGIN_SCRIPT = `
local v = redis.call('GET', KEYS[1])
if v then return v end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return false`;

type ScriptedRedis = Redis & {
  gwHit(key: string, windowMs: number): Promise<[number, number]>;
  gwBegin(key: string, value: string, lockMs: number): Promise<string | null>;
};

function scripted(redis: Redis): ScriptedRedis {
  const r = redis as ScriptedRedis;
  if (typeof r.gwHit !== 'function') {
    redis.defineCommand('gwHit', { numberOfKeys: 1, lua: HIT_SCRIPT });
    redis.defineCommand('gwBegin', { numberOfKeys: 1, lua: BEGIN_SCRIPT });
  }
  return r;
}

export class RedisRateLimitStore implements RateLimitStore {
  private readonly redis: ScriptedRedis;
  constructor(redis: Redis, private readonly prefix: string, private readonly owned = false) {
    this.redis = scripted(redis);
  }
  async hit(key: string, windowMs: number): Promise<RateHit> {
    const [count, ttl] = await this.redis.gwHit(this.prefix + key, windowMs);
    return { count, resetAtMs: Date.now() + ttl };
  }
  async close(): Promise<void> {
    if (this.owned) await this.redis.quit();
  }
}

const encode = (r: IdempotencyRecord, body = (r as { body?: string }).body) =>
  r.state === 'in_progress' ? `p|${r.fingerprint}` : `d|${r.fingerprint}|${r.status}|${encodeURIComponent(r.contentType ?? '')}|${body}`;

function decode(v: string, open: (body: string) => string): IdempotencyRecord {
  const parts = v.split('|');
  if (parts[0] === 'p') return { state: 'in_progress', fingerprint: parts[1] };
  return { state: 'done', fingerprint: parts[1], status: Number(parts[2]), contentType: parts[3] ? decodeURIComponent(parts[3]) : null, body: open(parts[4] ?? '') };
}

export class RedisIdempotencyStore implements IdempotencyStore {
  private readonly redis: ScriptedRedis;
  /**
   * `secrets`: the answers kept are sealed with it (docs/adr/0067): one can carry a secret shown once
   * (a new API key, a webhook's signing secret), and Redis keeps its data on disk.
   */
  constructor(redis: Redis, private readonly prefix: string, private readonly owned = false, private readonly secrets?: SecretBox) {
    this.redis = scripted(redis);
  }
  private readonly context = (key: string) => `idempotency:${key}`;
  async begin(key: string, fingerprint: string, lockMs: number): Promise<IdempotencyRecord | null> {
    const v = await this.redis.gwBegin(this.prefix + key, encode({ state: 'in_progress', fingerprint }), lockMs);
    // Records from before sealing (or of a gateway without a key) are read as they are.
    return v == null ? null : decode(v, (body) => (this.secrets ? this.secrets.reveal(body, this.context(key)) : body));
  }
  async complete(key: string, record: Extract<IdempotencyRecord, { state: 'done' }>, ttlMs: number): Promise<void> {
    await this.redis.set(this.prefix + key, encode(record, this.secrets ? this.secrets.seal(record.body, this.context(key)) : record.body), 'PX', ttlMs);
  }
  async release(key: string): Promise<void> {
    await this.redis.del(this.prefix + key);
  }
  async close(): Promise<void> {
    if (this.owned) await this.redis.quit();
  }
}
