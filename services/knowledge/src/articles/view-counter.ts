import { bulkWriteInScopes, type Collection, type Scope, type ServiceWorker } from '@helpdesk/kit';
import type { ArticleModel } from './model';

interface Pending {
  scope: Scope;
  id: string;
  views: number;
}

const keyOf = (scope: Scope, id: string) => `${scope.teamId}:${scope.mode}:${id}`;

/**
 * Public reads count views without writing on the read path: counts gather in memory and one
 * bulkWrite of `$inc`s stores them every `intervalMs` (and at stop). Answers add the views not yet
 * stored (`pending`), so a count read from this process is exact; increments commute, so replicas
 * each flushing their own counts add up. A failed flush keeps its counts for the next one.
 */
export class ViewCounter implements ServiceWorker {
  private pending = new Map<string, Pending>();
  private inFlight = new Map<string, Pending>();
  private readonly timer: NodeJS.Timeout;
  private flushing: Promise<void> | null = null;
  /** Bumped when a batch starts being written: a read that saw none start counts exactly. */
  private generation = 0;

  constructor(private readonly articles: Collection<'team-and-partition', ArticleModel>, intervalMs = 1_000) {
    this.timer = setInterval(() => void this.flush().catch(() => {}), intervalMs);
    this.timer.unref();
  }

  count(scope: Scope, id: string): void {
    const key = keyOf(scope, id);
    const p = this.pending.get(key);
    if (p) p.views++;
    else this.pending.set(key, { scope: { teamId: scope.teamId, mode: scope.mode }, id, views: 1 });
  }

  /** Views counted for an article and not yet stored. */
  unstored(scope: Scope, id: string): number {
    const key = keyOf(scope, id);
    return (this.pending.get(key)?.views ?? 0) + (this.inFlight.get(key)?.views ?? 0);
  }

  /**
   * Runs `read` (of stored articles) while no batch is being written, again if one started meanwhile:
   * its stored counts plus `unstored()` then count every view exactly once.
   */
  async settled<T>(read: () => Promise<T>): Promise<T> {
    for (;;) {
      if (this.flushing) {
        await this.flushing.catch(() => {});
        continue;
      }
      const generation = this.generation;
      const out = await read();
      if (!this.flushing && generation === this.generation) return out;
    }
  }

  /** Stores every count gathered so far (one flush at a time). */
  flush(): Promise<void> {
    this.flushing ??= this.write().finally(() => {
      this.flushing = null;
    });
    return this.flushing;
  }

  private async write(): Promise<void> {
    if (!this.pending.size) return;
    this.generation++;
    this.inFlight = this.pending;
    this.pending = new Map();
    const batch = [...this.inFlight.values()];
    try {
      await bulkWriteInScopes(
        this.articles,
        batch.map((p) => ({ scope: p.scope, updateOne: { filter: { _id: p.id }, update: { $inc: { viewCount: p.views } } } })),
        { ordered: false },
      );
    } catch (err) {
      // Put the counts back; the next flush tries again.
      for (const p of batch) {
        const key = keyOf(p.scope, p.id);
        const cur = this.pending.get(key);
        if (cur) cur.views += p.views;
        else this.pending.set(key, p);
      }
      throw err;
    } finally {
      this.inFlight = new Map();
    }
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.flush().catch(() => {});
    if (this.pending.size) await this.flush().catch(() => {});
  }
}
