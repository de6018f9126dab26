import { subscribes } from '@helpdesk/contracts';
import { LookupCache, scoped, scopeKey, type Scope } from '@helpdesk/kit';
import type { WebhooksModels } from '../collections';
import type { WebhookDoc } from './model';
import type { PatternWrites } from './port';

/**
 * Per partition, the event patterns of its active webhooks: most events no webhook wants are then
 * acknowledged without a read. Kept only when this is the service's sole instance; dropped by each
 * webhook write here (create, update, delete, disable: the only writers of `isActive` and
 * `events`) once it committed (docs/adr/0045).
 */
export function activeWebhookPatterns({ models, soleInstance }: { models: WebhooksModels; soleInstance: boolean }) {
  const activePatterns = new LookupCache<readonly (readonly string[])[]>({ enabled: soleInstance });
  const writes: PatternWrites = { written: (scope, write) => activePatterns.afterWrite(scopeKey(scope), write) };
  return {
    ...writes,
    /**
     * False when no active webhook of the partition subscribes to `type` (known without a read when
     * kept); true otherwise, and always when nothing is kept: the caller reads the webhooks then.
     */
    async mayReceive(scope: Scope, type: string): Promise<boolean> {
      if (!activePatterns.enabled) return true;
      const patterns = await activePatterns.get(scopeKey(scope), async () =>
        (await scoped(models, scope).webhooks.find({ isActive: true }, { events: 1 }).lean<Pick<WebhookDoc, 'events'>[]>()).map((h) => h.events),
      );
      return patterns.some((p) => subscribes(p, type));
    },
  };
}
