import { z } from 'zod';
import { slaStateSchema } from '../sla';
import { changeFields, iso } from './common';
import type { CatalogEntry } from './read';

/**
 * The ticketing service's events (type → {version, data schema}) and the snapshots they carry: tickets
 * and messages, assignment, merge and SLA (docs/adr/0025, 0026, 0027), inbound email (0041), automations
 * and AI (0028, 0029). Spread into EVENT_CATALOG by ../events.ts; nothing here imports it.
 */

/** A ticket's statuses, priorities and message senders: the manifest's request schemas and the event snapshots share them. */
export const TICKET_STATUSES = ['new', 'open', 'pending', 'resolved', 'closed', 'merged'] as const;
export type TicketStatus = (typeof TICKET_STATUSES)[number];
export const PRIORITIES = ['low', 'normal', 'high', 'urgent'] as const;
export type Priority = (typeof PRIORITIES)[number];
export const SENDERS = ['agent', 'customer', 'system', 'ai'] as const;
export type Sender = (typeof SENDERS)[number];

export const ticketSnapshotSchema = z.object({
  id: z.string(),
  title: z.string(),
  status: z.enum(TICKET_STATUSES),
  priority: z.enum(PRIORITIES),
  customerId: z.string().nullable(),
  assignedTo: z.string().nullable(),
  tags: z.array(z.string()),
  notes: z.string().nullable(),
  messageCount: z.number().int(),
  metadata: z.record(z.string(), z.unknown()),
  /** `{fieldId: value}` of the team's ticket custom fields (docs/adr/0022); absent in events from before them. */
  customFields: z.record(z.string(), z.unknown()).optional(),
  /** Where the ticket came from: `api`, `email`, `widget`, `import`; game damage needs it. */
  channel: z.string(),
  /** `customer` when the opening message is the customer's, else `member` (docs/adr/0025); absent in events from before it. */
  openedBy: z.enum(['customer', 'member']).optional(),
  /** The SLA clock (docs/adr/0026): null when no rule applies; absent in events from before it. */
  sla: slaStateSchema.nullable().optional(),
  /** The ticket a `merged` ticket was merged into (docs/adr/0027); absent in events from before it. */
  mergedInto: z.string().nullable().optional(),
  createdAt: iso,
  updatedAt: iso,
  /**
   * Grows by one with every write of the ticket: consumers keep the snapshot with the highest
   * revision, since updatedAt can repeat (two writes in one millisecond) and events arrive out of
   * order. Absent in events from before it.
   */
  revision: z.number().int().nonnegative().optional(),
  resolvedAt: iso.nullable(),
  closedAt: iso.nullable(),
});
export type TicketSnapshot = z.infer<typeof ticketSnapshotSchema>;

export const messageSnapshotSchema = z.object({
  id: z.string(),
  ticketId: z.string(),
  content: z.string(),
  sender: z.enum(SENDERS),
  senderName: z.string().nullable(),
  /**
   * The member (`mem_…`) who wrote it: an agent message (a reply or an internal note) sent with a
   * member's key; null otherwise (customer and system messages, email and widget messages, a key of no
   * member). Absent in events from before it.
   */
  authorId: z.string().nullable().optional(),
  isInternal: z.boolean(),
  createdAt: iso,
});
export type MessageSnapshot = z.infer<typeof messageSnapshotSchema>;

/** Tickets and their messages: the first events of the catalog. */
export const TICKET_EVENTS = {
  'ticket.created': {
    version: 1, read: { op: 'getTicket' },
    data: z.object({
      ticket: ticketSnapshotSchema,
      /** The messages given at creation, oldest first (they emit no ticket.message_added). Added in v1, optional. */
      messages: z.array(messageSnapshotSchema).optional(),
    }),
  },
  'ticket.updated': {
    version: 1, read: { op: 'getTicket' },
    data: z.object({
      ticket: ticketSnapshotSchema,
      /** Names of the fields that changed, and their values before the change. */
      ...changeFields,
    }),
  },
  'ticket.closed': { version: 1, read: { op: 'getTicket' }, data: z.object({ ticket: ticketSnapshotSchema, previousStatus: z.string() }) },
  'ticket.message_added': {
    version: 1, read: { op: 'listMessages' },
    data: z.object({ ticket: ticketSnapshotSchema, message: messageSnapshotSchema }),
  },
  'ticket.deleted': {
    version: 1, read: { op: 'getTicket' },
    data: z.object({ ticketId: z.string(), customerId: z.string().nullable(), ticket: ticketSnapshotSchema }),
  },
} as const satisfies Record<string, CatalogEntry>;

export const slaRuleSnapshotSchema = z.object({
  id: z.string(),
  name: z.string(),
  priorityKey: z.enum(PRIORITIES),
  responseTimeMinutes: z.number().int().positive(),
  resolutionTimeMinutes: z.number().int().positive(),
  use24x7: z.boolean(),
  enabled: z.boolean(),
  /** 0-based place in the evaluation order. */
  position: z.number().int().nonnegative(),
  createdAt: iso,
  updatedAt: iso,
});
export type SlaRuleSnapshot = z.infer<typeof slaRuleSnapshotSchema>;

export const SLA_BREACH_TARGETS = ['first_response', 'resolution'] as const;

export const TICKETING_EVENTS = {
  /** Assigned, re-assigned or unassigned (`assignedTo` null); `ticket.updated` with change `assignedTo` is emitted too. */
  'ticket.assigned': {
    version: 1, read: { op: 'getTicket' },
    data: z.object({ ticket: ticketSnapshotSchema, assignedTo: z.string().nullable(), previousAssignedTo: z.string().nullable() }),
  },
  /** `ticket` is the target, after the merge; every source is `merged` and points at it (docs/adr/0027). */
  'ticket.merged': { version: 1, read: { op: 'getTicket' }, data: z.object({ ticket: ticketSnapshotSchema, sourceTicketIds: z.array(z.string()) }) },
  /** Once per ticket and target, when its due time passes unmet (docs/adr/0026). */
  'sla.breached': {
    version: 1, read: { op: 'getTicket' },
    data: z.object({ ticket: ticketSnapshotSchema, ruleId: z.string(), target: z.enum(SLA_BREACH_TARGETS), dueAt: iso, breachedAt: iso }),
  },
  'sla_rule.created': { version: 1, read: { op: 'getSlaRule' }, data: z.object({ rule: slaRuleSnapshotSchema }) },
  'sla_rule.updated': { version: 1, read: { op: 'getSlaRule' }, data: z.object({ rule: slaRuleSnapshotSchema, ...changeFields }) },
  'sla_rule.deleted': { version: 1, read: { op: 'getSlaRule' }, data: z.object({ ruleId: z.string(), rule: slaRuleSnapshotSchema }) },
  /** The whole evaluation order after the change. */
  'sla_rule.reordered': { version: 1, read: { op: 'listSlaRules' }, data: z.object({ ruleIds: z.array(z.string()) }) },
  /** The inbound webhook's secret (docs/adr/0041): never the secret itself, its last 4 characters. */
  'inbound_email.secret_rotated': { version: 1, read: { op: 'getInboundEmail' }, data: z.object({ hint: z.string(), createdAt: z.string(), previousValidUntil: z.string().nullable() }) },
  'inbound_email.secret_revoked': { version: 1, read: { op: 'getInboundEmail' }, data: z.object({ hint: z.string() }) },
} as const satisfies Record<string, CatalogEntry>;

// ---------- automations and AI (docs/adr/0028, 0029) ----------

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
