import { z } from 'zod';
import type { CatalogEntry } from './read';

/**
 * Ticketing's automation, AI and analytics events (type → {version, data schema}), spread into
 * EVENT_CATALOG in ../events.ts, and the snapshots they carry (docs/adr/0028, 0029).
 */
const iso = z.string().datetime();

/** The ticket events an automation can run on (docs/adr/0028). */
export const AUTOMATION_TRIGGERS = ['ticket.created', 'ticket.updated', 'ticket.closed', 'ticket.message_added', 'ticket.assigned'] as const;
export type AutomationTrigger = (typeof AUTOMATION_TRIGGERS)[number];

/** The fields a condition can test: the ticket's, and for `ticket.message_added` the new message's. */
export const CONDITION_FIELDS = [
  'status', 'priority', 'tags', 'title', 'assignedTo', 'customerId', 'channel', 'messageCount',
  'message.content', 'message.sender', 'message.isInternal',
] as const;
export type ConditionField = (typeof CONDITION_FIELDS)[number];

/**
 * The operators (docs/adr/0028). `changed`, `changed_to` and `changed_from` read the triggering event's
 * change list (`ticket.updated`); on other events `changed` is false, `changed_to` compares the current value.
 */
export const CONDITION_OPERATORS = [
  'equals', 'not_equals', 'contains', 'not_contains', 'in', 'not_in',
  'greater_than', 'less_than', 'is_empty', 'is_not_empty', 'changed', 'changed_to', 'changed_from',
] as const;
export type ConditionOperator = (typeof CONDITION_OPERATORS)[number];
/** Operators that take no `value`. */
export const VALUELESS_OPERATORS: readonly ConditionOperator[] = ['is_empty', 'is_not_empty', 'changed'];

export const ACTION_TYPES = ['assign', 'set_status', 'set_priority', 'add_tags', 'remove_tags', 'add_note', 'send_reply', 'notify_member'] as const;
export type ActionType = (typeof ACTION_TYPES)[number];

export const conditionSnapshotSchema = z.object({ field: z.string(), operator: z.string(), value: z.unknown().optional() });
export const automationSnapshotSchema = z.object({
  id: z.string(),
  object: z.literal('automation_rule'),
  name: z.string(),
  triggerEvent: z.string(),
  conditions: z.object({ all: z.array(conditionSnapshotSchema), any: z.array(conditionSnapshotSchema) }),
  actions: z.array(z.record(z.string(), z.unknown())),
  enabled: z.boolean(),
  executionCount: z.number().int(),
  position: z.number().int(),
  lastExecutedAt: iso.nullable(),
  createdAt: iso,
  updatedAt: iso,
});
export type AutomationSnapshot = z.infer<typeof automationSnapshotSchema>;

/** What happened when a rule ran on an event: `executed`, or `stopped` by the depth limit (nothing applied). */
export const EXECUTION_OUTCOMES = ['executed', 'stopped'] as const;
export const actionOutcomeSchema = z.object({ action: z.string(), success: z.boolean(), error: z.string().nullable() });

export const executionSnapshotSchema = z.object({
  id: z.string(),
  object: z.literal('automation_execution'),
  ruleId: z.string(),
  /** The event that triggered it (`evt_…`) and its type. */
  eventId: z.string(),
  eventType: z.string(),
  ticketId: z.string(),
  outcome: z.enum(EXECUTION_OUTCOMES),
  /** How many automation steps led to this event (0: a person's or the API's change). */
  depth: z.number().int(),
  actions: z.array(actionOutcomeSchema),
  createdAt: iso,
});
export type ExecutionSnapshot = z.infer<typeof executionSnapshotSchema>;

/** The team's AI settings, kept by ticketing (docs/adr/0029). */
export const aiSettingsSchema = z.object({
  object: z.literal('ai_settings'),
  /** Whether internal notes may be sent to the AI provider with the thread (default false). */
  includeInternalNotes: z.boolean(),
  updatedAt: iso.nullable(),
});
export type AiSettings = z.infer<typeof aiSettingsSchema>;

const changeFields = { changes: z.array(z.string()), previous: z.record(z.string(), z.unknown()) };

export const AUTOMATION_EVENTS = {
  'automation.created': { version: 1, read: { op: 'getAutomation' }, data: z.object({ automation: automationSnapshotSchema }) },
  'automation.updated': { version: 1, read: { op: 'getAutomation' }, data: z.object({ automation: automationSnapshotSchema, ...changeFields }) },
  'automation.deleted': { version: 1, read: { op: 'getAutomation' }, data: z.object({ automationId: z.string(), automation: automationSnapshotSchema }) },
  /** A rule ran (or was stopped by the depth limit) on one event, in the transaction of its changes. */
  'automation.executed': { version: 1, read: { op: 'listAutomationExecutions' }, data: z.object({ automation: automationSnapshotSchema, execution: executionSnapshotSchema }) },
  /** A `notify_member` action: the notifications service may turn it into a notification. */
  'automation.member_notified': {
    version: 1, read: { op: 'getAutomation' },
    data: z.object({ ruleId: z.string(), memberId: z.string(), ticketId: z.string(), message: z.string() }),
  },
  'ai_settings.updated': { version: 1, read: { op: 'getAiSettings' }, data: z.object({ settings: aiSettingsSchema, ...changeFields }) },
  /** suggest-reply built a reply from published articles: each counts as a use (knowledge's `useCount`). */
  'ai.reply_suggested': { version: 1, read: { permission: 'use_ai' }, data: z.object({ ticketId: z.string(), articleIds: z.array(z.string()) }) },
} as const satisfies Record<string, CatalogEntry>;
