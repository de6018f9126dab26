import { scoped, systemEventScope, withOutbox, type Scope, type ScopedFilter } from '@helpdesk/kit';
import { cancelPending } from './deliveries/rules';
import type { WebhookDoc } from './model';
import type { PatternWrites, WebhookStore } from './port';
import { iso, webhookSnapshot } from './view';

/** Why the delivery worker disables a webhook (`webhook.disabled`'s `reason`). */
export interface DisableReason {
  reason: 'gone' | 'failing';
  lastStatusCode: number | null;
  /** Only if it has been failing since at least then (a success elsewhere may have reset it meanwhile). */
  failingBefore?: Date;
}

/**
 * Disables a webhook on the delivery worker's behalf and emits `webhook.disabled`, in one
 * transaction with the cancellation of its pending deliveries. Returns false when there was
 * nothing to disable (already inactive, deleted, or healthy again since `failingBefore`).
 */
export async function disableWebhook({ conn, models, patterns }: WebhookStore & { patterns: PatternWrites }, scope: Scope, webhookId: string, why: DisableReason): Promise<boolean> {
  const db = scoped(models, scope);
  return patterns.written(scope, () => withOutbox(conn, systemEventScope(scope), async (session, emit) => {
    const filter: ScopedFilter<WebhookDoc> = { _id: webhookId, isActive: true };
    if (why.failingBefore) filter.failingSince = { $ne: null, $lte: why.failingBefore };
    const now = new Date();
    const cur = await db.webhooks
      .findOneAndUpdate(filter, { $set: { isActive: false, updatedAt: now }, $inc: { rev: 1 } }, { session, returnDocument: 'after' })
      .lean<WebhookDoc>();
    if (!cur) return false;
    await cancelPending(models, scope, webhookId, session);
    emit({
      type: 'webhook.disabled',
      data: { webhook: webhookSnapshot(cur), reason: why.reason, lastStatusCode: why.lastStatusCode, failingSince: iso(cur.failingSince) },
    });
    return true;
  }));
}
