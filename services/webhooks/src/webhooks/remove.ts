import { eventScopeOf, foundOr404, scoped, withOutbox, type RequestContext } from '@helpdesk/kit';
import { cancelPending } from './deliveries/rules';
import { quotaId, type WebhookDoc } from './model';
import type { PatternWrites, WebhookStore } from './port';
import { webhookSnapshot } from './view';

export async function removeWebhook({ conn, models, patterns }: WebhookStore & { patterns: PatternWrites }, ctx: RequestContext, id: string): Promise<{ id: string; deleted: true }> {
  const db = scoped(models, ctx);
  await patterns.written(ctx, () => withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
    const cur = await foundOr404(db.webhooks.findOneAndDelete({ _id: id }, { session }).lean<WebhookDoc>(), 'webhook', id);
    await db.quotas.updateOne({ _id: quotaId(ctx), count: { $gt: 0 } }, { $inc: { count: -1 } }, { session });
    await cancelPending(models, ctx, id, session);
    emit({ type: 'webhook.deleted', data: { webhookId: id, webhook: webhookSnapshot(cur) } });
  }));
  // Its delivery log goes with it (it cannot be read any more); the retention TTL removes what this misses.
  await db.deliveries.deleteMany({ webhookId: id });
  return { id, deleted: true };
}
