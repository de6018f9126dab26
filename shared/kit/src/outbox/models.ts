import mongoose from 'mongoose';

/*
 * Infrastructure collections. They are NOT tenant-scoped: the tenancy plugin is not applied (the
 * relay reads every team's pending events; de-duplication is keyed by event id, which is globally
 * unique). The envelope inside each row still carries its teamId and mode.
 */

export const OUTBOX_RETENTION_SECONDS = 7 * 24 * 3600;
export const PROCESSED_RETENTION_SECONDS = 30 * 24 * 3600;

export interface OutboxRow {
  _id: string; // event id
  envelope: Record<string, unknown>;
  /** W3C trace headers of the request that emitted the event, so the consumer joins its trace. */
  trace: Record<string, string>;
  /** Insertion order (ms timestamp × 1000 + a per-process counter). */
  seq: number;
  createdAt: Date;
  publishedAt: Date | null;
}

const outboxSchema = new mongoose.Schema<OutboxRow>(
  {
    _id: { type: String, required: true },
    envelope: { type: mongoose.Schema.Types.Mixed, required: true },
    trace: { type: mongoose.Schema.Types.Mixed, default: {} },
    seq: { type: Number, required: true },
    createdAt: { type: Date, required: true },
    publishedAt: { type: Date, default: null },
  },
  { collection: 'outbox', versionKey: false, minimize: false, autoIndex: true },
);
outboxSchema.index({ publishedAt: 1, seq: 1 });
// Published rows expire after 7 days (rows with publishedAt null never expire).
outboxSchema.index({ publishedAt: 1 }, { expireAfterSeconds: OUTBOX_RETENTION_SECONDS, name: 'published_ttl', partialFilterExpression: { publishedAt: { $type: 'date' } } });

/** One row per relay group: the lease a relay instance holds while it publishes. */
export interface RelayLeaseRow {
  _id: string;
  owner: string | null;
  leaseUntil: Date;
}
const leaseSchema = new mongoose.Schema<RelayLeaseRow>(
  {
    _id: { type: String, required: true },
    owner: { type: String, default: null },
    leaseUntil: { type: Date, required: true },
  },
  { collection: 'outbox_lease', versionKey: false },
);

export interface ProcessedEventRow {
  _id: string; // `${consumer}:${eventId}`
  consumer: string;
  eventId: string;
  processedAt: Date;
}
const processedSchema = new mongoose.Schema<ProcessedEventRow>(
  {
    _id: { type: String, required: true },
    consumer: { type: String, required: true },
    eventId: { type: String, required: true },
    processedAt: { type: Date, required: true },
  },
  { collection: 'processed_events', versionKey: false },
);
processedSchema.index({ consumer: 1, eventId: 1 }, { unique: true });
// Kept longer than the outbox (7 days) and the broker's retries, so any redelivery is recognised.
processedSchema.index({ processedAt: 1 }, { expireAfterSeconds: PROCESSED_RETENTION_SECONDS });

export function outboxModel(conn: mongoose.Connection): mongoose.Model<OutboxRow> {
  return (conn.models.KitOutbox as mongoose.Model<OutboxRow>) ?? conn.model<OutboxRow>('KitOutbox', outboxSchema);
}
export function leaseModel(conn: mongoose.Connection): mongoose.Model<RelayLeaseRow> {
  return (conn.models.KitOutboxLease as mongoose.Model<RelayLeaseRow>) ?? conn.model<RelayLeaseRow>('KitOutboxLease', leaseSchema);
}
export function processedModel(conn: mongoose.Connection): mongoose.Model<ProcessedEventRow> {
  return (conn.models.KitProcessedEvent as mongoose.Model<ProcessedEventRow>) ?? conn.model<ProcessedEventRow>('KitProcessedEvent', processedSchema);
}

/** As long as the gateway keeps a key's answer (24 h). */
export const IDEMPOTENT_REQUEST_RETENTION_SECONDS = 24 * 3600;

/**
 * One row per Idempotency-Key a service wrote with (docs/adr/0062): inserted in the request's first
 * transaction; `steps` holds each committed transaction's result (EJSON), `result` the answer once sent.
 */
export interface IdempotentRequestRow {
  _id: string;
  fingerprint: string;
  steps: string[];
  result: string | null;
  createdAt: Date;
}
const idempotentRequestSchema = new mongoose.Schema<IdempotentRequestRow>(
  {
    _id: { type: String, required: true },
    fingerprint: { type: String, required: true },
    steps: { type: [String], default: [] },
    result: { type: String, default: null },
    createdAt: { type: Date, required: true },
  },
  { collection: 'idempotent_requests', versionKey: false },
);
idempotentRequestSchema.index({ createdAt: 1 }, { expireAfterSeconds: IDEMPOTENT_REQUEST_RETENTION_SECONDS });

export function idempotentRequestModel(conn: mongoose.Connection): mongoose.Model<IdempotentRequestRow> {
  return (conn.models.KitIdempotentRequest as mongoose.Model<IdempotentRequestRow>) ?? conn.model<IdempotentRequestRow>('KitIdempotentRequest', idempotentRequestSchema);
}
