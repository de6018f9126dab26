/**
 * A per-process cache of what a write path looks up on every request or event and rarely changes (a
 * team's custom field definitions, SLA rules, automation rules, active webhooks, member names:
 * docs/adr/0045). Never late: the owner invalidates a key right after each of its own writes to what
 * the key caches commits (before it answers), and a load that was under way while any invalidation
 * happened is answered but not kept, so it cannot put back what the write replaced.
 *
 * Only sound where this process sees every write to the cached data: `enabled` is the service's
 * `soleInstance` (ServiceDeps), true when its bus is process-local (the one-process platform, tests),
 * false with a broker, where replicas of a service share the database and another replica's write
 * would not reach this process's cache. Disabled, `get` always loads. Enabled without an owner's
 * invalidations it is a plain bounded TTL cache, late by up to `ttlMs` (the gateway's widget origins).
 *
 * Bounded: at most `maxEntries` keys (the oldest dropped first), each kept at most `ttlMs`.
 */
export class LookupCache<T> {
  private readonly entries = new Map<string, { value: T; until: number }>();
  /** Bumped by every invalidation: a load started under an older epoch is not kept. */
  private epoch = 0;
  readonly enabled: boolean;
  private readonly maxEntries: number;
  private readonly ttlMs: number;
  private readonly keep: (value: T) => boolean;

  /** `keep`: which loaded values are kept (default all; e.g. not a null that a later insert would make wrong). */
  constructor(opts: { enabled: boolean; maxEntries?: number; ttlMs?: number; keep?: (value: T) => boolean }) {
    this.enabled = opts.enabled;
    this.maxEntries = opts.maxEntries ?? 1000;
    this.ttlMs = opts.ttlMs ?? 60_000;
    this.keep = opts.keep ?? (() => true);
  }

  /** The cached value of `key`, or `load()`'s (kept when no invalidation happened meanwhile). */
  async get(key: string, load: () => Promise<T>): Promise<T> {
    if (!this.enabled) return load();
    const hit = this.entries.get(key);
    const now = Date.now();
    if (hit && hit.until > now) return hit.value;
    const started = this.epoch;
    const value = await load();
    if (this.epoch === started && this.keep(value)) {
      this.entries.delete(key);
      if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
      this.entries.set(key, { value, until: now + this.ttlMs });
    }
    return value;
  }

  /** Drops `key` (every key when none is given). */
  invalidate(key?: string): void {
    this.epoch++;
    if (key === undefined) this.entries.clear();
    else this.entries.delete(key);
  }

  /** Runs `write`, then drops `key` whether it succeeded or not (a failed write may have committed). */
  async afterWrite<R>(key: string, write: () => Promise<R>): Promise<R> {
    try {
      return await write();
    } finally {
      this.invalidate(key);
    }
  }

  get size(): number {
    return this.entries.size;
  }
}

/** The cache key of a team's partition. */
export const scopeKey = (scope: { teamId: string; mode: string }) => `${scope.teamId}:${scope.mode}`;
