import mongoose from 'mongoose';
import { tenancyPlugin } from '@helpdesk/kit';
import { PRIORITIES, type Priority, type Partition } from '@helpdesk/contracts';

/** An SLA rule (`sla_…`), per team and partition; `position` is its place in the evaluation order. */
export interface SlaRuleDoc {
  _id: string;
  teamId: string;
  mode: Partition;
  name: string;
  priorityKey: Priority;
  responseTimeMinutes: number;
  resolutionTimeMinutes: number;
  use24x7: boolean;
  enabled: boolean;
  position: number;
  createdAt: Date;
  updatedAt: Date;
}

const schema = new mongoose.Schema<SlaRuleDoc>(
  {
    _id: { type: String, required: true },
    name: { type: String, required: true },
    priorityKey: { type: String, enum: PRIORITIES, required: true },
    responseTimeMinutes: { type: Number, required: true },
    resolutionTimeMinutes: { type: Number, required: true },
    use24x7: { type: Boolean, required: true },
    enabled: { type: Boolean, required: true },
    position: { type: Number, required: true },
    createdAt: { type: Date, required: true },
    updatedAt: { type: Date, required: true },
  },
  { collection: 'sla_rules', versionKey: false, strict: 'throw' },
);
schema.plugin(tenancyPlugin);
schema.index({ teamId: 1, mode: 1, position: 1 });

export type SlaRuleModel = mongoose.Model<SlaRuleDoc>;

export function slaRuleModel(conn: mongoose.Connection): SlaRuleModel {
  return (conn.models.SlaRule as SlaRuleModel | undefined) ?? conn.model<SlaRuleDoc>('SlaRule', schema);
}

/** The evaluation order. */
export const EVALUATION_ORDER = { position: 1, _id: 1 } as const;

/** A lease row: which replica runs the breach scan until `expiresAt` (docs/adr/0026). */
export interface SchedulerLeaseDoc {
  _id: string;
  holder: string;
  expiresAt: Date;
}

const leaseSchema = new mongoose.Schema<SchedulerLeaseDoc>(
  { _id: { type: String, required: true }, holder: { type: String, required: true }, expiresAt: { type: Date, required: true } },
  { collection: 'scheduler_leases', versionKey: false, strict: 'throw' },
);

export function schedulerLeaseModel(conn: mongoose.Connection): mongoose.Model<SchedulerLeaseDoc> {
  return (conn.models.SchedulerLease as mongoose.Model<SchedulerLeaseDoc> | undefined) ?? conn.model<SchedulerLeaseDoc>('SchedulerLease', leaseSchema);
}
