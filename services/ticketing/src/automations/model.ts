import mongoose from 'mongoose';
import { tenancyPlugin } from '@helpdesk/kit';
import type { ActionInput, ConditionInput, ExecutionSnapshot, Partition } from '@helpdesk/contracts';

/** An automation rule (docs/adr/0028). `_id` is the public `rule_…` id; `position` orders evaluation. */
export interface AutomationDoc {
  _id: string;
  teamId: string;
  mode: Partition;
  name: string;
  triggerEvent: string;
  conditions: { all: ConditionInput[]; any: ConditionInput[] };
  actions: ActionInput[];
  enabled: boolean;
  executionCount: number;
  position: number;
  lastExecutedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

const ruleSchema = new mongoose.Schema<AutomationDoc>(
  {
    _id: { type: String, required: true },
    name: { type: String, required: true },
    triggerEvent: { type: String, required: true },
    conditions: { type: mongoose.Schema.Types.Mixed, required: true },
    actions: { type: mongoose.Schema.Types.Mixed, default: () => [] },
    enabled: { type: Boolean, required: true },
    executionCount: { type: Number, required: true, default: 0 },
    position: { type: Number, required: true },
    lastExecutedAt: { type: Date, default: null },
    createdAt: { type: Date, required: true },
    updatedAt: { type: Date, required: true },
  },
  { collection: 'automations', versionKey: false, minimize: false, strict: 'throw' },
);
ruleSchema.plugin(tenancyPlugin);
// What a trigger event reads: the partition's enabled rules for that event, in evaluation order.
ruleSchema.index({ teamId: 1, mode: 1, triggerEvent: 1, position: 1, createdAt: 1 });
ruleSchema.index({ teamId: 1, mode: 1, position: 1, createdAt: 1 });

/** One entry of a rule's execution log. */
export interface ExecutionDoc {
  _id: string;
  teamId: string;
  mode: Partition;
  ruleId: string;
  eventId: string;
  eventType: string;
  ticketId: string;
  outcome: ExecutionSnapshot['outcome'];
  depth: number;
  actions: ExecutionSnapshot['actions'];
  createdAt: Date;
}

export const EXECUTION_TTL_SECONDS = 90 * 24 * 3600;

const executionSchema = new mongoose.Schema<ExecutionDoc>(
  {
    _id: { type: String, required: true },
    ruleId: { type: String, required: true },
    eventId: { type: String, required: true },
    eventType: { type: String, required: true },
    ticketId: { type: String, required: true },
    outcome: { type: String, required: true },
    depth: { type: Number, required: true },
    actions: { type: mongoose.Schema.Types.Mixed, default: () => [] },
    createdAt: { type: Date, required: true },
  },
  { collection: 'automation_executions', versionKey: false, minimize: false, strict: 'throw' },
);
executionSchema.plugin(tenancyPlugin);
executionSchema.index({ teamId: 1, mode: 1, ruleId: 1, createdAt: -1, _id: -1 });
executionSchema.index({ createdAt: 1 }, { expireAfterSeconds: EXECUTION_TTL_SECONDS });

/**
 * The events automations emitted, by event id, with how deep in a chain of automations they are:
 * a rule reacting to one of them runs at depth + 1 (the loop guard). Kept as long as the
 * de-duplication records of the consumers that read them.
 */
export interface AutomationCauseDoc {
  _id: string;
  teamId: string;
  mode: Partition;
  depth: number;
  ruleId: string;
  createdAt: Date;
}

const causeSchema = new mongoose.Schema<AutomationCauseDoc>(
  {
    _id: { type: String, required: true },
    depth: { type: Number, required: true },
    ruleId: { type: String, required: true },
    createdAt: { type: Date, required: true },
  },
  { collection: 'automation_causes', versionKey: false, strict: 'throw' },
);
// In the team and partition of the events they record (the consumer reads them in the event's scope).
causeSchema.plugin(tenancyPlugin);
causeSchema.index({ createdAt: 1 }, { expireAfterSeconds: 30 * 24 * 3600 });

export type AutomationModel = mongoose.Model<AutomationDoc>;
export type ExecutionModel = mongoose.Model<ExecutionDoc>;
export type AutomationCauseModel = mongoose.Model<AutomationCauseDoc>;

export const automationModel = (conn: mongoose.Connection): AutomationModel =>
  (conn.models.Automation as AutomationModel | undefined) ?? conn.model<AutomationDoc>('Automation', ruleSchema);
export const executionModel = (conn: mongoose.Connection): ExecutionModel =>
  (conn.models.AutomationExecution as ExecutionModel | undefined) ?? conn.model<ExecutionDoc>('AutomationExecution', executionSchema);
export const automationCauseModel = (conn: mongoose.Connection): AutomationCauseModel =>
  (conn.models.AutomationCause as AutomationCauseModel | undefined) ?? conn.model<AutomationCauseDoc>('AutomationCause', causeSchema);
