import type mongoose from 'mongoose';
import { eventAccess, isKnownEventType, mayRead, subscribes, type EventEnvelope, type ListDeliveriesQuery, type Page } from '@helpdesk/contracts';
import {
  ApiError,
  bulkWriteInScopes,
  conflict,
  CONSUMER_TRANSACTION_GIVE_UP_MS,
  eventScopeOf,
  findPage,
  foundOr404,
  inTransaction,
  microBatches,
  newId,
  notFound,
  recordProcessed,
  scoped,
  scopeKey,
  type RequestContext,
  type Scope,
  withOutbox,
  type ScopedFilter,
} from '@helpdesk/kit';
import { deliveryBody } from '../../delivery/body';
import { commitAndDispatch, commitAndDispatchGroups, type DeliveryGroup, type Dispatcher, type NewDelivery } from '../../delivery/dispatch';
import type { WebhooksModels } from '../../collections';
import { readerOf, type WebhookDoc } from '../model';
import type { WebhookRules } from '../rules';
import { iso } from '../view';
import { deliveryAccess, newDeliveryRow, type DeliveryDoc } from './model';
import { deliveryView, type DeliveryView } from './view';

export interface DeliveryRulesDeps {
  conn: mongoose.Connection;
  models: WebhooksModels;
  webhooks: WebhookRules;
  /** The delivery worker of this process (new deliveries go out at once, not at the next poll). */
  dispatch: Dispatcher;
}

/** The consumer name in `processed_events` (one de-duplication record per event). */
export const CONSUMER = 'webhooks';

/**
 * Cancels what still waits for a webhook that was disabled or deleted. The generation bump keeps an
 * attempt already in flight from setting the row back to pending: it only records its attempt.
 */
export async function cancelPending(models: WebhooksModels, scope: Scope, webhookId: string, session?: mongoose.ClientSession): Promise<void> {
  await scoped(models, scope).deliveries.updateMany(
    { webhookId, status: 'pending' },
    { $set: { status: 'cancelled', nextAttemptAt: null, updatedAt: new Date() }, $inc: { generation: 1 } },
    { session },
  );
}

const byId = (hooks: WebhookDoc[]) => new Map(hooks.map((h) => [h._id, h]));

/** The rules of a webhook's delivery log, of redelivery, and of creating deliveries (docs/adr/0007). */
export function deliveryRules({ conn, models, webhooks, dispatch }: DeliveryRulesDeps) {
  /**
   * The events of one micro-batch (what the bus has in flight, docs/adr/0047 and 0072): the active
   * webhooks read once per team and partition, then every delivery row and every event's
   * de-duplication record in ONE transaction. Events no webhook wants are left out of it (no write).
   * A batch that fails is applied again one event at a time by microBatches, so a repeated event
   * (AlreadyProcessed) is skipped alone, as consumeOnce skips it.
   */
  async function deliverEvents(events: EventEnvelope[]): Promise<void> {
    const seen = new Set<string>();
    const unique = events.filter((e) => !seen.has(e.id) && seen.add(e.id));
    const activeByScope = new Map<string, Promise<WebhookDoc[]>>();
    const activeOf = (e: EventEnvelope) => {
      const key = scopeKey(e);
      let found = activeByScope.get(key);
      if (!found) activeByScope.set(key, (found = scoped(models, e).webhooks.find({ isActive: true }).select('+secret').lean<WebhookDoc[]>().exec()));
      return found;
    };
    const groups: (DeliveryGroup & { event: EventEnvelope })[] = [];
    for (const event of unique) {
      const active = await activeOf(event);
      // Its patterns choose among what it may read: whom it reads as must be allowed the event (docs/adr/0066).
      const access = eventAccess(event.type, event.data);
      const hooks = active.filter((h) => subscribes(h.events, event.type) && mayRead(access, readerOf(h)));
      if (!hooks.length) continue;
      const now = new Date();
      const body = deliveryBody(event);
      const rows: NewDelivery[] = hooks.map((h) =>
        newDeliveryRow({ id: newId('delivery'), webhookId: h._id, eventId: event.id, eventType: event.type, requestId: event.requestId, test: false, body, now }),
      );
      groups.push({ event, scope: { teamId: event.teamId, mode: event.mode }, rows, hooks: byId(hooks) });
    }
    if (!groups.length) return;
    await commitAndDispatchGroups(dispatch, groups, () =>
      inTransaction(
        conn,
        async (session) => {
          // The records first: a repeat fails the unit before anything else is written.
          await recordProcessed(conn, CONSUMER, groups.map((g) => g.event), session);
          await bulkWriteInScopes(models.deliveries, groups.flatMap((g) => g.rows.map((document) => ({ insertOne: { document }, scope: g.scope }))), { session });
          return true;
        },
        { giveUpAfterMs: CONSUMER_TRANSACTION_GIVE_UP_MS },
      ),
    );
  }
  const eventBatches = microBatches(deliverEvents);

  return {
    async list(ctx: RequestContext, webhookId: string, q: ListDeliveriesQuery): Promise<Page<DeliveryView>> {
      await webhooks.findOr404(ctx, webhookId);
      const db = scoped(models, ctx);
      const filter: ScopedFilter<DeliveryDoc> = { webhookId };
      if (q.status) filter.status = q.status;
      if (q.eventType) filter.eventType = q.eventType;
      const { rows, pagination } = await findPage(db.deliveries, filter, q, { projection: { body: 0 } });
      return { data: rows.map((d) => deliveryView(d)), pagination };
    },

    async get(ctx: RequestContext, webhookId: string, deliveryId: string): Promise<DeliveryView> {
      await webhooks.findOr404(ctx, webhookId);
      const d = await foundOr404(scoped(models, ctx).deliveries.findOne({ _id: deliveryId, webhookId }).lean<DeliveryDoc>(), 'delivery', deliveryId);
      return deliveryView(d, true);
    },

    /**
     * Sends the delivery again now, with the same id and body: it becomes pending, due at once, on a
     * fresh run of the retry schedule; its attempts are appended to the same log. A webhook that is
     * not active is refused (409): enable it first.
     */
    async redeliver(ctx: RequestContext, webhookId: string, deliveryId: string): Promise<DeliveryView> {
      const hook = await webhooks.findOr404(ctx, webhookId);
      const db = scoped(models, ctx);
      const row = await foundOr404(db.deliveries.findOne({ _id: deliveryId, webhookId }, { eventType: 1, body: 1 }).lean<Pick<DeliveryDoc, 'eventType' | 'body'>>(), 'delivery', deliveryId);
      if (!hook.isActive) throw conflict(`Webhook ${webhookId} is not active; enable it (PATCH isActive: true) before redelivering.`);
      if (!mayRead(deliveryAccess(row), readerOf(hook))) {
        throw conflict(`Webhook ${webhookId} may no longer read ${row.eventType} events (docs/adr/0066); save its events with a key that may, then redeliver.`);
      }
      const now = new Date();
      const d = await db.deliveries
        .findOneAndUpdate(
          { _id: deliveryId, webhookId },
          { $set: { status: 'pending', nextAttemptAt: now, runAttempts: 0, updatedAt: now }, $inc: { generation: 1 } },
          { returnDocument: 'after' },
        )
        .lean<DeliveryDoc>();
      if (!d) throw notFound('delivery', deliveryId);
      dispatch.kick();
      return deliveryView(d);
    },

    /**
     * A test event (new `evt_` id, `test: true`, empty `data`) to every active webhook of the team and
     * partition, whatever it subscribes to (the spec: "to all active webhooks"). The test event itself
     * is not published (the catalog validates real events only); `webhook.test_triggered`, committed
     * with the deliveries, names it, and the event stream hands it to its listeners (the spec's "local
     * listeners", docs/adr/0021).
     */
    async triggerTest(ctx: RequestContext, event: string) {
      if (!isKnownEventType(event)) {
        // The spec shows this one error in uppercase.
        throw new ApiError('PARAMETER_INVALID', `Invalid event: '${event}' is not a known event type.`, 'event');
      }
      const db = scoped(models, ctx);
      // Whatever they subscribe to, but only where a real event of the type would be allowed (docs/adr/0066).
      const access = eventAccess(event, {});
      const hooks = (await db.webhooks.find({ isActive: true }).select('+secret').sort({ createdAt: 1, _id: 1 }).lean<WebhookDoc[]>()).filter((h) => mayRead(access, readerOf(h)));
      const now = new Date();
      const eventId = newId('event');
      const body = deliveryBody({ id: eventId, type: event, occurredAt: now.toISOString(), teamId: ctx.teamId, mode: ctx.mode, data: {} }, true);
      const rows = hooks.map((h) =>
        newDeliveryRow({ id: newId('delivery'), webhookId: h._id, eventId, eventType: event, requestId: ctx.requestId, test: true, body, now }),
      );
      const commit = (all: NewDelivery[]) =>
        withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
          if (all.length) await db.deliveries.insertMany(all, { session });
          emit({ type: 'webhook.test_triggered', data: { event, eventId, createdAt: now.toISOString() } });
          return true;
        });
      // No active webhook: no delivery, but the stream's listeners still get the test event.
      if (rows.length) await commitAndDispatch(dispatch, ctx, rows, byId(hooks), commit);
      else await commit([]);
      const urlOf = new Map(hooks.map((h) => [h._id, h.url]));
      return {
        event,
        eventId,
        test: true as const,
        deliveries: rows.map((r) => ({ id: r._id, webhookId: r.webhookId, url: urlOf.get(r.webhookId)!, status: r.status, nextAttemptAt: iso(r.nextAttemptAt) })),
      };
    },

    /**
     * An event from the bus becomes one delivery per active webhook of its team and partition that
     * subscribes to it. The deliveries and the de-duplication record commit together (in the
     * micro-batch of the events in flight, `deliverEvents`), so a broker redelivery creates nothing
     * twice; events no webhook wants are acknowledged without a write. It resolves once its batch committed.
     */
    async deliverEvent(event: EventEnvelope): Promise<void> {
      if (!(await webhooks.mayReceive(event, event.type))) return;
      await eventBatches.submit(event);
    },
  };
}

export type DeliveryRules = ReturnType<typeof deliveryRules>;
