import mongoose from 'mongoose';
import { tenancyPlugin } from '@helpdesk/kit';
import type { Partition } from '@helpdesk/contracts';

/**
 * One audit log entry per event, in its team and partition (docs/adr/0023). `sequence` numbers the
 * entries of a team and partition from 1; `hash` covers the entry and `previousHash`, chaining them.
 */
export interface AuditEntryDoc {
  _id: string;
  teamId: string;
  mode: Partition;
  eventId: string;
  action: string;
  resourceType: string;
  resourceId: string | null;
  actorType: 'key' | 'member' | 'system';
  actorId: string | null;
  /** The console session the member acted through (docs/adr/0068); absent otherwise. */
  actorSessionId?: string | null;
  actorName: string;
  details: Record<string, unknown>;
  createdAt: Date;
  sequence: number;
  previousHash: string | null;
  hash: string;
}

/** Default retention; AUDIT_RETENTION_DAYS (workspace's main.ts, a whole number of days, 1 to 36,500) changes it. */
export const AUDIT_RETENTION_DAYS_DEFAULT = 365;

/** The entries' model; their TTL index removes entries `retentionDays` after they were made. */
export function auditEntryModel(conn: mongoose.Connection, retentionDays = AUDIT_RETENTION_DAYS_DEFAULT) {
  type AuditEntryModel = mongoose.Model<AuditEntryDoc>;
  const existing = conn.models.AuditEntry as AuditEntryModel | undefined;
  if (existing) return existing;
  const schema = new mongoose.Schema<AuditEntryDoc>(
    {
      _id: { type: String, required: true },
      eventId: { type: String, required: true },
      action: { type: String, required: true },
      resourceType: { type: String, required: true },
      resourceId: { type: String, default: null },
      actorType: { type: String, enum: ['key', 'member', 'system'], required: true },
      actorId: { type: String, default: null },
      actorSessionId: { type: String },
      actorName: { type: String, required: true },
      details: { type: mongoose.Schema.Types.Mixed, required: true },
      createdAt: { type: Date, required: true },
      sequence: { type: Number, required: true },
      previousHash: { type: String, default: null },
      hash: { type: String, required: true },
    },
    { collection: 'audit_log', versionKey: false, minimize: false, strict: 'throw' },
  );
  schema.plugin(tenancyPlugin);
  // Once per event, whatever the redeliveries.
  schema.index({ eventId: 1 }, { unique: true });
  // One entry per place in the chain: two concurrent appends cannot both take the same sequence.
  schema.index({ teamId: 1, mode: 1, sequence: 1 }, { unique: true });
  schema.index({ teamId: 1, mode: 1, createdAt: -1, _id: -1 });
  schema.index({ createdAt: 1 }, { expireAfterSeconds: retentionDays * 24 * 60 * 60 });
  return conn.model<AuditEntryDoc>('AuditEntry', schema);
}
