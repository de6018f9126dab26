import mongoose from 'mongoose';
import { DELIVERY_STATUSES, eventAccess, hasMemberRule, isKnownEventType, type DeliveryStatus, type EventAccess, type Partition } from '@helpdesk/contracts';
import { tenancyPlugin, type Unscoped } from '@helpdesk/kit';

/** One HTTP attempt, as the delivery log shows it. */
export interface AttemptRecord {
  /** 1-based, counting every attempt of the delivery (redeliveries continue the count). */
  attempt: number;
  at: Date;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
}

/** At most this many attempts are kept per delivery (the oldest are dropped; `attemptCount` keeps counting). */
export const ATTEMPTS_KEPT = 50;

/** Kept 30 days after their last change, far longer than a retry schedule (~28 h), then removed by a TTL index. */
export const DELIVERY_RETENTION_SECONDS = 30 * 24 * 3600;

/** No lease: a date every `leaseUntil <= now` test passes. */
export const NO_LEASE = new Date(0);

/** A stored delivery: one event for one webhook. `_id` is the `dlv_…` id, stable across attempts. */
export interface DeliveryDoc {
  _id: string;
  teamId: string;
  mode: Partition;
  webhookId: string;
  eventId: string;
  eventType: string;
  /** The triggering request's id (`x-svc-request-id`); null for events no request caused. */
  requestId: string | null;
  test: boolean;
  /** The exact JSON body, fixed when the delivery is created: every attempt sends the same bytes. */
  body: string;
  status: DeliveryStatus;
  attempts: AttemptRecord[];
  attemptCount: number;
  /** Attempts made on the current run of the retry schedule (a redelivery starts a new run). */
  runAttempts: number;
  /** When a pending delivery is due; null once it is settled. */
  nextAttemptAt: Date | null;
  /** The worker that claimed it and until when; NO_LEASE when nobody holds it. */
  leaseOwner: string | null;
  leaseUntil: Date;
  /** Bumped by a redelivery or a cancellation, so an attempt in flight cannot overwrite them. */
  generation: number;
  createdAt: Date;
  updatedAt: Date;
}

/** Who may read a delivery's event (docs/adr/0066); the body is parsed only for a type whose events belong to a member. */
export function deliveryAccess(d: Pick<DeliveryDoc, 'eventType' | 'body'>): EventAccess | null {
  const owned = isKnownEventType(d.eventType) && hasMemberRule(d.eventType);
  return eventAccess(d.eventType, owned ? (JSON.parse(d.body) as { data?: unknown }).data : {});
}

const attemptSchema = new mongoose.Schema<AttemptRecord>(
  {
    attempt: { type: Number, required: true },
    at: { type: Date, required: true },
    statusCode: { type: Number, default: null },
    durationMs: { type: Number, required: true },
    error: { type: String, default: null },
  },
  { _id: false },
);

const fields = {
  _id: { type: String, required: true },
  webhookId: { type: String, required: true },
  eventId: { type: String, required: true },
  eventType: { type: String, required: true },
  requestId: { type: String, default: null },
  test: { type: Boolean, required: true, default: false },
  body: { type: String, required: true },
  status: { type: String, enum: DELIVERY_STATUSES, required: true },
  attempts: { type: [attemptSchema], default: [] },
  attemptCount: { type: Number, required: true, default: 0 },
  runAttempts: { type: Number, required: true, default: 0 },
  nextAttemptAt: { type: Date, default: null },
  leaseOwner: { type: String, default: null },
  leaseUntil: { type: Date, required: true, default: () => NO_LEASE },
  generation: { type: Number, required: true, default: 0 },
  createdAt: { type: Date, required: true },
  updatedAt: { type: Date, required: true },
};
const options = { collection: 'deliveries', versionKey: false as const, minimize: false, strict: 'throw' as const };

/**
 * Tenant-scoped like every team collection (kit's fail-closed plugin). The delivery worker claims
 * due rows of every team and records attempts by `_id` through the data layer's named way across
 * teams (`acrossTeams(models).deliveries`, ../../delivery/worker.ts); whatever it reads about a
 * webhook goes through `scoped` with the row's own scope.
 */
const deliverySchema = new mongoose.Schema<DeliveryDoc>(fields, options);
deliverySchema.plugin(tenancyPlugin);
// An event reaches a webhook once, however often the broker redelivers it.
deliverySchema.index({ webhookId: 1, eventId: 1 }, { unique: true, name: 'webhook_event_unique' });
// Due deliveries: equality on status leaves only the pending rows to look at.
deliverySchema.index({ status: 1, nextAttemptAt: 1 });
deliverySchema.index({ leaseOwner: 1 });
deliverySchema.index({ teamId: 1, mode: 1, webhookId: 1, createdAt: -1 });
deliverySchema.index({ updatedAt: 1 }, { expireAfterSeconds: DELIVERY_RETENTION_SECONDS, name: 'retention_ttl' });

export type DeliveryModel = mongoose.Model<DeliveryDoc>;

export function deliveryModel(conn: mongoose.Connection): DeliveryModel {
  return (conn.models.Delivery as DeliveryModel | undefined) ?? conn.model<DeliveryDoc>('Delivery', deliverySchema);
}

/** A new pending delivery, due now (its team and partition come from the scope it is written with). */
export function newDeliveryRow(input: {
  id: string;
  webhookId: string;
  eventId: string;
  eventType: string;
  requestId: string | null;
  test: boolean;
  body: string;
  now: Date;
}): Unscoped<DeliveryDoc> {
  const { id, now, ...rest } = input;
  return {
    _id: id,
    ...rest,
    status: 'pending',
    attempts: [],
    attemptCount: 0,
    runAttempts: 0,
    nextAttemptAt: now,
    leaseOwner: null,
    leaseUntil: NO_LEASE,
    generation: 0,
    createdAt: now,
    updatedAt: now,
  };
}
