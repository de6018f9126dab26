import { patternsKey, type UpdateWebhookInput, type WebhookSnapshot } from '@helpdesk/contracts';
import { changeSet, eventScopeOf, retrying, scoped, withOutbox, type RequestContext } from '@helpdesk/kit';
import type { WebhookSettings } from '../settings';
import { checkedUrl, duplicate, isDuplicateKey, readAsOf } from './checks';
import { cancelPending } from './deliveries/rules';
import type { WebhookDoc } from './model';
import type { PatternWrites, WebhookStore } from './port';
import { findWebhookOr404 } from './read';
import { webhookSnapshot } from './view';

/** A PATCH lost the race with another write to the same webhook; it is re-run from a fresh read. */
class StaleWebhook extends Error {}
const STALE_RETRIES = 10;

export async function updateWebhook(
  deps: WebhookStore & { settings: Pick<WebhookSettings, 'allowLoopback'>; patterns: PatternWrites },
  ctx: RequestContext,
  id: string,
  input: UpdateWebhookInput,
): Promise<WebhookSnapshot> {
  const { conn, models, settings, patterns } = deps;
  const url = input.url === undefined ? undefined : checkedUrl(settings, input.url);
  const db = scoped(models, ctx);
  const attempt = () =>
    withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
      const cur = await findWebhookOr404(deps, ctx, id, session);
      const { set, previous, change, changes: changedFields } = changeSet<WebhookDoc>(cur);
      if (input.name !== undefined) change('name', input.name);
      const urlChanged = url !== undefined && change('url', url);
      const eventsChanged = input.events !== undefined && change('events', input.events);
      if (eventsChanged) set.eventsKey = patternsKey(input.events!);
      // Whoever chooses where its events go, or which, is whom it reads as from now on (docs/adr/0066).
      if (urlChanged || eventsChanged) set.readAs = readAsOf(ctx, input.events ?? cur.events);
      if (input.isActive !== undefined && change('isActive', input.isActive)) {
        // Enabled again: its failing streak starts over. Disabled: what waits for it is cancelled.
        if (input.isActive) set.failingSince = null;
        else await cancelPending(models, ctx, id, session);
      }
      const changes = changedFields();
      if (!changes.length) return cur;
      set.updatedAt = new Date();
      const written = await db.webhooks.updateOne({ _id: id, rev: cur.rev }, { $set: set, $inc: { rev: 1 } }, { session });
      if (written.matchedCount !== 1) throw new StaleWebhook();
      const next: WebhookDoc = { ...cur, ...set, rev: cur.rev + 1 };
      emit({ type: 'webhook.updated', data: { webhook: webhookSnapshot(next), changes, previous } });
      return next;
    });
  try {
    return webhookSnapshot(await patterns.written(ctx, () => retrying(attempt, (err) => err instanceof StaleWebhook, STALE_RETRIES)));
  } catch (err) {
    if (isDuplicateKey(err)) throw duplicate();
    throw err;
  }
}
