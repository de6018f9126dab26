import type mongoose from 'mongoose';
import type { WebhookSnapshot } from '@helpdesk/contracts';
import {
  ApiError,
  changeSet,
  duplicateKeyOf,
  eventScopeOf,
  SYSTEM_ACTOR,
  conflict,
  newId,
  notFound,
  pageOf,
  parameterInvalid,
  scopeOf,
  skipOf,
  withOutbox,
  type EventScope,
  type Pagination,
  type RequestContext,
  type Scope,
} from '@helpdesk/kit';
import { cancelPending } from '../deliveries/service';
import type { DeliveryModel } from '../deliveries/model';
import { newSecret } from '../delivery/signing';
import { urlProblem } from '../delivery/safety';
import type { WebhookSettings } from '../settings';
import { quotaKey, type QuotaModel, type WebhookDoc, type WebhookModel } from './model';
import { patternsKey } from './patterns';
import type { CreateWebhookInput, ListWebhooksQuery, UpdateWebhookInput } from './schema';

export interface WebhookDeps {
  conn: mongoose.Connection;
  webhooks: WebhookModel;
  quotas: QuotaModel;
  deliveries: DeliveryModel;
  settings: WebhookSettings;
}

// ---------- views ----------

const iso = (d: Date | null | undefined) => (d ? new Date(d).toISOString() : null);

/** The public Webhook (the spec's table without `secret`); events carry the same. */
export function webhookSnapshot(w: WebhookDoc): WebhookSnapshot {
  return {
    id: w._id,
    name: w.name,
    url: w.url,
    events: [...w.events],
    isActive: w.isActive,
    createdAt: iso(w.createdAt)!,
    updatedAt: iso(w.updatedAt)!,
  };
}


/** Events the service emits on its own (a webhook disabled by the delivery worker). */
export const systemScope = (scope: Scope): EventScope => ({ ...scope, requestId: null, actor: SYSTEM_ACTOR });

const isDuplicateKey = (err: unknown) => duplicateKeyOf(err) !== null;
const duplicate = () =>
  conflict('A webhook with this url and the same events already exists in this team and partition.', 'url');

/** A PATCH lost the race with another write to the same webhook; it is re-run from a fresh read. */
class StaleWebhook extends Error {}
const STALE_RETRIES = 10;

// ---------- the rules ----------

export function createWebhookService(deps: WebhookDeps) {
  const { conn, webhooks: Webhooks, quotas: Quotas, deliveries: Deliveries, settings } = deps;

  /** The URL as stored: checked against the deployment's rules, then normalised by the URL parser. */
  function checkedUrl(raw: string): string {
    const problem = urlProblem(raw, { allowLoopback: settings.allowLoopback });
    if (problem) throw parameterInvalid('url', `Invalid url: ${problem}.`);
    return new URL(raw).href;
  }

  async function findOr404(ctx: Pick<RequestContext, 'teamId' | 'mode'>, id: string, session?: mongoose.ClientSession): Promise<WebhookDoc> {
    const w = await Webhooks.findOne({ _id: id, ...scopeOf(ctx) }).session(session ?? null).lean<WebhookDoc>();
    if (!w) throw notFound('webhook', id);
    return w;
  }

  return {
    findOr404,

    async list(ctx: RequestContext, q: ListWebhooksQuery): Promise<{ items: WebhookSnapshot[]; pagination: Pagination }> {
      const filter: Record<string, unknown> = { ...scopeOf(ctx) };
      if (q.isActive !== undefined) filter.isActive = q.isActive;
      const [total, rows] = await Promise.all([
        Webhooks.countDocuments(filter),
        Webhooks.find(filter).sort({ createdAt: -1, _id: -1 }).skip(skipOf(q.page, q.pageSize)).limit(q.pageSize).lean<WebhookDoc[]>(),
      ]);
      return { items: rows.map(webhookSnapshot), pagination: pageOf(q.page, q.pageSize, total) };
    },

    async get(ctx: RequestContext, id: string): Promise<WebhookSnapshot> {
      return webhookSnapshot(await findOr404(ctx, id));
    },

    /** The only answer that ever carries the secret. */
    async create(ctx: RequestContext, input: CreateWebhookInput): Promise<WebhookSnapshot & { secret: string }> {
      const url = checkedUrl(input.url);
      const now = new Date();
      const scope = scopeOf(ctx);
      const doc: WebhookDoc = {
        _id: newId('webhook'),
        ...scope,
        name: input.name,
        url,
        events: input.events,
        eventsKey: patternsKey(input.events),
        secret: newSecret(),
        isActive: true,
        failingSince: null,
        rev: 0,
        createdAt: now,
        updatedAt: now,
      };
      const quota = quotaKey(scope);
      try {
        // The counter row exists before the transaction, so the transaction only ever updates it.
        await Quotas.updateOne(quota, { $setOnInsert: { count: 0 } }, { upsert: true });
      } catch (err) {
        if (!isDuplicateKey(err)) throw err; // a concurrent first create made it
      }
      try {
        await withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
          const counted = await Quotas.updateOne(
            { ...quota, count: { $lt: settings.maxWebhooksPerTeam } },
            { $inc: { count: 1 } },
            { session },
          );
          if (counted.matchedCount !== 1) {
            throw new ApiError(
              'resource_conflict',
              `This team already has ${settings.maxWebhooksPerTeam} webhooks in this partition (the limit); delete one first.`,
            );
          }
          await Webhooks.create([doc], { session });
          emit({ type: 'webhook.created', data: { webhook: webhookSnapshot(doc) } });
        });
      } catch (err) {
        if (isDuplicateKey(err)) throw duplicate();
        throw err;
      }
      return { ...webhookSnapshot(doc), secret: doc.secret };
    },

    async update(ctx: RequestContext, id: string, input: UpdateWebhookInput): Promise<WebhookSnapshot> {
      const url = input.url === undefined ? undefined : checkedUrl(input.url);
      const attempt = () =>
        withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
          const cur = await findOr404(ctx, id, session);
          const { set, previous, change, changes: changedFields } = changeSet<WebhookDoc>(cur);
          if (input.name !== undefined) change('name', input.name);
          if (url !== undefined) change('url', url);
          if (input.events !== undefined && change('events', input.events)) set.eventsKey = patternsKey(input.events);
          if (input.isActive !== undefined && change('isActive', input.isActive)) {
            // Enabled again: its failing streak starts over. Disabled: what waits for it is cancelled.
            if (input.isActive) set.failingSince = null;
            else await cancelPending(Deliveries, scopeOf(ctx), id, session);
          }
          const changes = changedFields();
          if (!changes.length) return cur;
          set.updatedAt = new Date();
          const written = await Webhooks.updateOne({ _id: id, ...scopeOf(ctx), rev: cur.rev }, { $set: set, $inc: { rev: 1 } }, { session });
          if (written.matchedCount !== 1) throw new StaleWebhook();
          const next: WebhookDoc = { ...cur, ...set, rev: cur.rev + 1 };
          emit({ type: 'webhook.updated', data: { webhook: webhookSnapshot(next), changes, previous } });
          return next;
        });
      for (let n = 1; ; n++) {
        try {
          return webhookSnapshot(await attempt());
        } catch (err) {
          if (isDuplicateKey(err)) throw duplicate();
          if (!(err instanceof StaleWebhook) || n >= STALE_RETRIES) throw err;
        }
      }
    },

    async remove(ctx: RequestContext, id: string): Promise<{ id: string; deleted: true }> {
      const scope = scopeOf(ctx);
      await withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
        const cur = await Webhooks.findOneAndDelete({ _id: id, ...scope }, { session }).lean<WebhookDoc>();
        if (!cur) throw notFound('webhook', id);
        await Quotas.updateOne({ ...quotaKey(scope), count: { $gt: 0 } }, { $inc: { count: -1 } }, { session });
        await cancelPending(Deliveries, scope, id, session);
        emit({ type: 'webhook.deleted', data: { webhookId: id, webhook: webhookSnapshot(cur) } });
      });
      // Its delivery log goes with it (it cannot be read any more); the retention TTL removes what this misses.
      await Deliveries.deleteMany({ ...scope, webhookId: id });
      return { id, deleted: true };
    },
  };
}

export type WebhookService = ReturnType<typeof createWebhookService>;

/**
 * Disables a webhook on the delivery worker's behalf and emits `webhook.disabled`, in one transaction
 * with the cancellation of its pending deliveries. `failingBefore` makes it conditional on the
 * webhook still failing since at least then (a success elsewhere may have reset it meanwhile).
 * Returns false when there was nothing to disable (already inactive, deleted, or healthy again).
 */
export async function disableWebhook(
  deps: { conn: mongoose.Connection; webhooks: WebhookModel; deliveries: DeliveryModel },
  scope: Scope,
  webhookId: string,
  why: { reason: 'gone' | 'failing'; lastStatusCode: number | null; failingBefore?: Date },
): Promise<boolean> {
  return withOutbox(deps.conn, systemScope(scope), async (session, emit) => {
    const filter: Record<string, unknown> = { _id: webhookId, ...scope, isActive: true };
    if (why.failingBefore) filter.failingSince = { $ne: null, $lte: why.failingBefore };
    const now = new Date();
    const cur = await deps.webhooks
      .findOneAndUpdate(filter, { $set: { isActive: false, updatedAt: now }, $inc: { rev: 1 } }, { session, returnDocument: 'after' })
      .lean<WebhookDoc>();
    if (!cur) return false;
    await cancelPending(deps.deliveries, scope, webhookId, session);
    emit({
      type: 'webhook.disabled',
      data: { webhook: webhookSnapshot(cur), reason: why.reason, lastStatusCode: why.lastStatusCode, failingSince: iso(cur.failingSince) },
    });
    return true;
  });
}
