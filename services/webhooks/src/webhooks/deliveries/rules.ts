import type mongoose from 'mongoose';
import { isKnownEventType, type EventEnvelope } from '@helpdesk/contracts';
import { ApiError, conflict, newId, notFound, pageOf, scopeOf, skipOf, type Pagination, type RequestContext, type Scope } from '@helpdesk/kit';
import { deliveryBody } from '../delivery/body';
import type { WebhookDoc, WebhookModel } from '../webhooks/model';
import { commitAndDispatch, type Dispatcher } from '../delivery/dispatch';
import { newDeliveryRow, type DeliveryDoc, type DeliveryModel } from './model';
import type { ListDeliveriesQuery } from './schema';

export interface DeliveryDeps {
  conn: mongoose.Connection;
  webhooks: WebhookModel;
  deliveries: DeliveryModel;
  /** The delivery worker of this process (new deliveries go out at once, not at the next poll). */
  dispatch: Dispatcher;
}

const iso = (d: Date | null | undefined) => (d ? new Date(d).toISOString() : null);

/** A delivery in the log. `payload` (the exact body sent, parsed) only on the single read. */
export function deliveryView(d: DeliveryDoc, withPayload = false) {
  return {
    id: d._id,
    webhookId: d.webhookId,
    eventId: d.eventId,
    eventType: d.eventType,
    test: d.test,
    status: d.status,
    attempts: d.attempts.map((a) => ({
      attempt: a.attempt,
      at: iso(a.at)!,
      statusCode: a.statusCode ?? null,
      durationMs: a.durationMs,
      error: a.error ?? null,
    })),
    attemptCount: d.attemptCount,
    nextAttemptAt: iso(d.nextAttemptAt),
    createdAt: iso(d.createdAt)!,
    updatedAt: iso(d.updatedAt)!,
    ...(withPayload ? { payload: JSON.parse(d.body) as unknown } : {}),
  };
}
export type DeliveryView = ReturnType<typeof deliveryView>;

/**
 * Cancels what still waits for a webhook that was disabled or deleted. The generation bump keeps an
 * attempt already in flight from setting the row back to pending: it only records its attempt.
 */
export async function cancelPending(Deliveries: DeliveryModel, scope: Scope, webhookId: string, session?: mongoose.ClientSession): Promise<void> {
  await Deliveries.updateMany(
    { ...scope, webhookId, status: 'pending' },
    { $set: { status: 'cancelled', nextAttemptAt: null, updatedAt: new Date() }, $inc: { generation: 1 } },
    { session },
  );
}

/** The deliveries of one event from the bus: one per webhook given (the active ones that subscribe to it). */
export function eventDeliveryRows(event: EventEnvelope, hooks: Pick<WebhookDoc, '_id'>[], now = new Date()): DeliveryDoc[] {
  const body = deliveryBody(event);
  return hooks.map((h) =>
    newDeliveryRow({
      id: newId('delivery'),
      teamId: event.teamId,
      mode: event.mode,
      webhookId: h._id,
      eventId: event.id,
      eventType: event.type,
      requestId: event.requestId,
      test: false,
      body,
      now,
    }),
  );
}

export function createDeliveryService(deps: DeliveryDeps) {
  const { conn, webhooks: Webhooks, deliveries: Deliveries, dispatch } = deps;

  async function webhookOr404(ctx: RequestContext, webhookId: string): Promise<WebhookDoc> {
    const w = await Webhooks.findOne({ _id: webhookId, ...scopeOf(ctx) }).lean<WebhookDoc>();
    if (!w) throw notFound('webhook', webhookId);
    return w;
  }

  return {
    async list(ctx: RequestContext, webhookId: string, q: ListDeliveriesQuery): Promise<{ items: DeliveryView[]; pagination: Pagination }> {
      await webhookOr404(ctx, webhookId);
      const filter: Record<string, unknown> = { ...scopeOf(ctx), webhookId };
      if (q.status) filter.status = q.status;
      if (q.eventType) filter.eventType = q.eventType;
      const [total, rows] = await Promise.all([
        Deliveries.countDocuments(filter),
        Deliveries.find(filter, { body: 0 }).sort({ createdAt: -1, _id: -1 }).skip(skipOf(q.page, q.pageSize)).limit(q.pageSize).lean<DeliveryDoc[]>(),
      ]);
      return { items: rows.map((d) => deliveryView(d)), pagination: pageOf(q.page, q.pageSize, total) };
    },

    async get(ctx: RequestContext, webhookId: string, deliveryId: string): Promise<DeliveryView> {
      await webhookOr404(ctx, webhookId);
      const d = await Deliveries.findOne({ _id: deliveryId, ...scopeOf(ctx), webhookId }).lean<DeliveryDoc>();
      if (!d) throw notFound('delivery', deliveryId);
      return deliveryView(d, true);
    },

    /**
     * Sends the delivery again now, with the same id and body: it becomes pending, due at once, on a
     * fresh run of the retry schedule; its attempts are appended to the same log. A webhook that is
     * not active is refused (409): enable it first.
     */
    async redeliver(ctx: RequestContext, webhookId: string, deliveryId: string): Promise<DeliveryView> {
      const hook = await webhookOr404(ctx, webhookId);
      const exists = await Deliveries.exists({ _id: deliveryId, ...scopeOf(ctx), webhookId });
      if (!exists) throw notFound('delivery', deliveryId);
      if (!hook.isActive) throw conflict(`Webhook ${webhookId} is not active; enable it (PATCH isActive: true) before redelivering.`);
      const now = new Date();
      const d = await Deliveries.findOneAndUpdate(
        { _id: deliveryId, ...scopeOf(ctx), webhookId },
        { $set: { status: 'pending', nextAttemptAt: now, runAttempts: 0, updatedAt: now }, $inc: { generation: 1 } },
        { returnDocument: 'after' },
      ).lean<DeliveryDoc>();
      if (!d) throw notFound('delivery', deliveryId);
      dispatch.kick();
      return deliveryView(d);
    },

    /**
     * A test event (new `evt_` id, `test: true`, empty `data`) to every active webhook of the team and
     * partition, whatever it subscribes to (the spec: "to all active webhooks"). It is not published
     * on the bus: the catalog validates real events only.
     */
    async triggerTest(ctx: RequestContext, event: string) {
      if (!isKnownEventType(event)) {
        // The spec shows this one error in uppercase.
        throw new ApiError('PARAMETER_INVALID', `Invalid event: '${event}' is not a known event type.`, 'event');
      }
      const scope = scopeOf(ctx);
      const hooks = await Webhooks.find({ ...scope, isActive: true }).select('+secret').sort({ createdAt: 1, _id: 1 }).lean<WebhookDoc[]>();
      const now = new Date();
      const eventId = newId('event');
      const body = deliveryBody({ id: eventId, type: event, occurredAt: now.toISOString(), ...scope, data: {} }, true);
      const rows = hooks.map((h) =>
        newDeliveryRow({ id: newId('delivery'), ...scope, webhookId: h._id, eventId, eventType: event, requestId: ctx.requestId, test: true, body, now }),
      );
      await commitAndDispatch(dispatch, rows, new Map(hooks.map((h) => [h._id, h])), async (all) => {
        await conn.transaction(async (session) => {
          await Deliveries.insertMany(all, { session });
        });
        return true;
      });
      const urlOf = new Map(hooks.map((h) => [h._id, h.url]));
      return {
        event,
        eventId,
        test: true as const,
        deliveries: rows.map((r) => ({ id: r._id, webhookId: r.webhookId, url: urlOf.get(r.webhookId)!, status: r.status, nextAttemptAt: iso(r.nextAttemptAt) })),
      };
    },
  };
}

export type DeliveryService = ReturnType<typeof createDeliveryService>;
