import type mongoose from 'mongoose';
import {
  patternsKey,
  subscribes,
  unreadablePattern,
  type CreateWebhookInput,
  type ListWebhooksQuery,
  type Page,
  type Permission,
  type UpdateWebhookInput,
  type WebhookSnapshot,
} from '@helpdesk/contracts';
import {
  ApiError,
  changeSet,
  conflict,
  duplicateKeyOf,
  eventScopeOf,
  findPage,
  foundOr404,
  LookupCache,
  newId,
  parameterInvalid,
  retrying,
  scoped,
  scopeKey,
  systemEventScope,
  withOutbox,
  type RequestContext,
  type Scope,
  type ScopedFilter,
  type SecretBox,
  type Unscoped,
} from '@helpdesk/kit';
import { urlProblem } from '../delivery/safety';
import { newSecret } from '../delivery/signing';
import type { WebhooksModels } from '../models';
import type { WebhookSettings } from '../settings';
import { cancelPending } from './deliveries/rules';
import { quotaId, type ReadAs, type WebhookDoc } from './model';
import { secretContext } from './secrets';
import { iso, webhookSnapshot } from './view';

export interface WebhookRulesDeps {
  conn: mongoose.Connection;
  models: WebhooksModels;
  settings: WebhookSettings;
  /** The service's `soleInstance`: what the partitions' active webhooks subscribe to is then kept per process (docs/adr/0045). */
  soleInstance?: boolean;
  /** Seals signing secrets (SECRETS_KEY, docs/adr/0067). */
  secrets: SecretBox;
}

/** Why the delivery worker disables a webhook (`webhook.disabled`'s `reason`). */
export interface DisableReason {
  reason: 'gone' | 'failing';
  lastStatusCode: number | null;
  /** Only if it has been failing since at least then (a success elsewhere may have reset it meanwhile). */
  failingBefore?: Date;
}

const isDuplicateKey = (err: unknown) => duplicateKeyOf(err) !== null;
const duplicate = () => conflict('A webhook with this url and the same events already exists in this team and partition.', 'url');

/**
 * Whom a webhook will read as once `ctx`'s key chooses its url or events (docs/adr/0066): that key,
 * which must be able to read something of every pattern (403 `insufficient_permissions`, param
 * `events`); patterns only narrow what it may read, never widen it.
 */
function readAsOf(ctx: RequestContext, events: readonly string[]): ReadAs {
  const unreadable = unreadablePattern(events, ctx);
  if (unreadable !== null) throw new ApiError('insufficient_permissions', `${unreadable} A webhook delivers only what the key that sets it up may read.`, 'events');
  return { keyId: ctx.keyId, memberId: ctx.memberId, permissions: [...ctx.permissions] };
}

/** A PATCH lost the race with another write to the same webhook; it is re-run from a fresh read. */
class StaleWebhook extends Error {}
const STALE_RETRIES = 10;

/** The rules of webhook subscriptions (docs/adr/0007). */
export function webhookRules({ conn, models, settings, soleInstance = false, secrets }: WebhookRulesDeps) {
  /**
   * Per partition, the event patterns of its active webhooks: most events no webhook wants are then
   * acknowledged without a read. Kept only when this is the service's sole instance; dropped by each
   * webhook write here (create, update, delete, disable: the only writers of `isActive` and
   * `events`) once it committed (docs/adr/0045).
   */
  const activePatterns = new LookupCache<readonly (readonly string[])[]>({ enabled: soleInstance });
  const written = <R>(scope: Scope, write: () => Promise<R>) => activePatterns.afterWrite(scopeKey(scope), write);
  /** The URL as stored: checked against the deployment's rules, then normalised by the URL parser. */
  function checkedUrl(raw: string): string {
    const problem = urlProblem(raw, { allowLoopback: settings.allowLoopback });
    if (problem) throw parameterInvalid('url', `Invalid url: ${problem}.`);
    return new URL(raw).href;
  }

  async function findOr404(scope: Scope, id: string, session?: mongoose.ClientSession): Promise<WebhookDoc> {
    return foundOr404(scoped(models, scope).webhooks.findOne({ _id: id }).session(session ?? null).lean<WebhookDoc>(), 'webhook', id);
  }

  return {
    findOr404,

    async list(ctx: RequestContext, q: ListWebhooksQuery): Promise<Page<WebhookSnapshot>> {
      const db = scoped(models, ctx);
      const filter: ScopedFilter<WebhookDoc> = {};
      if (q.isActive !== undefined) filter.isActive = q.isActive;
      const { rows, pagination } = await findPage(db.webhooks, filter, q);
      return { data: rows.map(webhookSnapshot), pagination };
    },

    async get(ctx: RequestContext, id: string): Promise<WebhookSnapshot> {
      return webhookSnapshot(await findOr404(ctx, id));
    },

    /** The only answer that ever carries the secret. */
    async create(ctx: RequestContext, input: CreateWebhookInput): Promise<WebhookSnapshot & { secret: string }> {
      const url = checkedUrl(input.url);
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
        secret: secrets.seal(secret, secretContext(id)),
        isActive: true,
        readAs,
        failingSince: null,
        rev: 0,
        createdAt: now,
        updatedAt: now,
      };
      const db = scoped(models, ctx);
      const quota = quotaId(ctx);
      try {
        // The counter row exists before the transaction, so the transaction only ever updates it.
        await db.quotas.updateOne({ _id: quota }, { $setOnInsert: { count: 0 } }, { upsert: true });
      } catch (err) {
        if (!isDuplicateKey(err)) throw err; // a concurrent first create made it
      }
      try {
        await written(ctx, () => withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
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
      } catch (err) {
        if (isDuplicateKey(err)) throw duplicate();
        throw err;
      }
      return { ...webhookSnapshot(doc), secret };
    },

    async update(ctx: RequestContext, id: string, input: UpdateWebhookInput): Promise<WebhookSnapshot> {
      const url = input.url === undefined ? undefined : checkedUrl(input.url);
      const db = scoped(models, ctx);
      const attempt = () =>
        withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
          const cur = await findOr404(ctx, id, session);
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
        return webhookSnapshot(await written(ctx, () => retrying(attempt, (err) => err instanceof StaleWebhook, STALE_RETRIES)));
      } catch (err) {
        if (isDuplicateKey(err)) throw duplicate();
        throw err;
      }
    },

    async remove(ctx: RequestContext, id: string): Promise<{ id: string; deleted: true }> {
      const db = scoped(models, ctx);
      await written(ctx, () => withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
        const cur = await foundOr404(db.webhooks.findOneAndDelete({ _id: id }, { session }).lean<WebhookDoc>(), 'webhook', id);
        await db.quotas.updateOne({ _id: quotaId(ctx), count: { $gt: 0 } }, { $inc: { count: -1 } }, { session });
        await cancelPending(models, ctx, id, session);
        emit({ type: 'webhook.deleted', data: { webhookId: id, webhook: webhookSnapshot(cur) } });
      }));
      // Its delivery log goes with it (it cannot be read any more); the retention TTL removes what this misses.
      await db.deliveries.deleteMany({ webhookId: id });
      return { id, deleted: true };
    },

    /**
     * Disables a webhook on the delivery worker's behalf and emits `webhook.disabled`, in one
     * transaction with the cancellation of its pending deliveries. Returns false when there was
     * nothing to disable (already inactive, deleted, or healthy again since `failingBefore`).
     */
    async disable(scope: Scope, webhookId: string, why: DisableReason): Promise<boolean> {
      const db = scoped(models, scope);
      return written(scope, () => withOutbox(conn, systemEventScope(scope), async (session, emit) => {
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
    },

    /**
     * A member's role changed (or they left: no permissions): the webhooks that read as their keys, in
     * both partitions, keep only what the new role allows. Narrowing only, so events applied twice or
     * out of order never widen anything; a webhook reads more again only when a key that may is used to
     * save its url or events (docs/adr/0066).
     */
    async narrowToRole(teamId: string, memberId: string, permissions: readonly Permission[]): Promise<void> {
      for (const mode of ['test', 'live'] as const) {
        await scoped(models, { teamId, mode }).webhooks.updateMany(
          { 'readAs.memberId': memberId },
          { $pull: { 'readAs.permissions': { $nin: [...permissions] } }, $inc: { rev: 1 } },
        );
      }
    },

    /**
     * False when no active webhook of the partition subscribes to `type` (known without a read when
     * kept, see activePatterns); true otherwise, and always when nothing is kept: the caller reads the webhooks then.
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

export type WebhookRules = ReturnType<typeof webhookRules>;
