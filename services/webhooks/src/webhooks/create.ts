import { patternsKey, type CreateWebhookInput, type WebhookSnapshot } from '@helpdesk/contracts';
import { ApiError, eventScopeOf, newId, scoped, withOutbox, type RequestContext, type SecretBox, type Unscoped } from '@helpdesk/kit';
import { newSecret } from '../delivery/signing';
import type { WebhookSettings } from '../settings';
import { checkedUrl, duplicate, isDuplicateKey, readAsOf } from './checks';
import { quotaId, type WebhookDoc } from './model';
import type { PatternWrites, WebhookStore } from './port';
import { secretContext } from './secrets';
import { webhookSnapshot } from './view';

export interface CreateWebhookDeps extends WebhookStore {
  settings: Pick<WebhookSettings, 'allowLoopback' | 'maxWebhooksPerTeam'>;
  patterns: PatternWrites;
  /** Seals signing secrets (SECRETS_KEY, docs/adr/0067). */
  secrets: Pick<SecretBox, 'seal'>;
}

/** The only answer that ever carries the secret. */
export async function createWebhook(deps: CreateWebhookDeps, ctx: RequestContext, input: CreateWebhookInput): Promise<WebhookSnapshot & { secret: string }> {
  const url = checkedUrl(deps.settings, input.url);
  const readAs = readAsOf(ctx, input.events);
  const now = new Date();
  const id = newId('webhook');
  // Shown once, in this answer; stored sealed, bound to this webhook (docs/adr/0067).
  const secret = newSecret();
  const doc: Unscoped<WebhookDoc> = {
    _id: id,
    name: input.name,
    url,
    events: input.events,
    eventsKey: patternsKey(input.events),
    secret: deps.secrets.seal(secret, secretContext(id)),
    isActive: true,
    readAs,
    failingSince: null,
    rev: 0,
    createdAt: now,
    updatedAt: now,
  };
  try {
    await insertCounted(deps, ctx, doc);
  } catch (err) {
    if (isDuplicateKey(err)) throw duplicate();
    throw err;
  }
  return { ...webhookSnapshot(doc), secret };
}

/** Inserts the webhook if the team's partition has fewer than the limit, counting it in the same transaction. */
async function insertCounted({ conn, models, settings, patterns }: CreateWebhookDeps, ctx: RequestContext, doc: Unscoped<WebhookDoc>): Promise<void> {
  const db = scoped(models, ctx);
  const quota = quotaId(ctx);
  try {
    // The counter row exists before the transaction, so the transaction only ever updates it.
    await db.quotas.updateOne({ _id: quota }, { $setOnInsert: { count: 0 } }, { upsert: true });
  } catch (err) {
    if (!isDuplicateKey(err)) throw err; // a concurrent first create made it
  }
  await patterns.written(ctx, () => withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
    const counted = await db.quotas.updateOne({ _id: quota, count: { $lt: settings.maxWebhooksPerTeam } }, { $inc: { count: 1 } }, { session });
    if (counted.matchedCount !== 1) {
      throw new ApiError(
        'resource_conflict',
        `This team already has ${settings.maxWebhooksPerTeam} webhooks in this partition (the limit); delete one first.`,
      );
    }
    await db.webhooks.create([doc], { session });
    emit({ type: 'webhook.created', data: { webhook: webhookSnapshot(doc) } });
  }));
}
