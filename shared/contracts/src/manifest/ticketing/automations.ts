import { z } from 'zod';
import {
  AUTOMATION_TRIGGERS,
  automationSnapshotSchema,
  CONDITION_FIELDS,
  CONDITION_OPERATORS,
  executionSnapshotSchema,
  VALUELESS_OPERATORS,
} from '../../catalog/ticketing';
import { nameField, paginationFields, TAG_MAX, tagsField } from '../../fields';
import { hasPrefix } from '../../ids';
import { defineOperations, deletedSchema } from '../operation';
import { PRIORITIES, TICKET_STATUSES } from '../../catalog/ticketing';
import { CONTENT_MAX, ticketIdField } from './tickets';

/** Automation rules and their executions (docs/adr/0028): they act on tickets inside ticketing's own transactions. */

/**
 * Ticketing's automations, AI actions and analytics (docs/adr/0028, 0029, 0030): they act on and read
 * tickets inside ticketing's own transactions, so they live in that service, one folder each.
 */

export const CONDITIONS_MAX = 20;
export const ACTIONS_MAX = 20;
export const AUTOMATIONS_MAX = 100;

const memberIdField = z.string().refine((s) => hasPrefix(s, 'member'), { message: 'must be a member id (mem_…)' });
const scalar = z.union([z.string().max(1000), z.number(), z.boolean(), z.null()]);

/** `{field, operator, value}`; `value` is absent for is_empty/is_not_empty/changed, a list for in/not_in. */
export const conditionSchema = z
  .strictObject({
    field: z.enum(CONDITION_FIELDS),
    operator: z.enum(CONDITION_OPERATORS),
    value: z.union([scalar, z.array(scalar).max(100)]).optional(),
  })
  .superRefine((c, ctx) => {
    const valueless = VALUELESS_OPERATORS.includes(c.operator);
    if (valueless && c.value !== undefined) ctx.addIssue({ code: 'custom', path: ['value'], message: `operator ${c.operator} takes no value` });
    if (!valueless && c.value === undefined) ctx.addIssue({ code: 'custom', path: ['value'], message: `operator ${c.operator} needs a value` });
    const list = c.operator === 'in' || c.operator === 'not_in';
    if (c.value !== undefined && list !== Array.isArray(c.value)) {
      ctx.addIssue({ code: 'custom', path: ['value'], message: list ? `operator ${c.operator} needs an array` : 'must not be an array' });
    }
    if ((c.operator === 'greater_than' || c.operator === 'less_than') && typeof c.value !== 'number') {
      ctx.addIssue({ code: 'custom', path: ['value'], message: `operator ${c.operator} needs a number` });
    }
  });
export type ConditionInput = z.output<typeof conditionSchema>;

export const conditionsSchema = z.strictObject({
  all: z.array(conditionSchema).max(CONDITIONS_MAX).optional(),
  any: z.array(conditionSchema).max(CONDITIONS_MAX).optional(),
});

const text = z
  .string()
  .max(CONTENT_MAX)
  .refine((s) => s.trim().length > 0, { message: 'must not be empty' });

/** The action types (docs/adr/0028), each a strict object: an unknown key or type is a 400. */
export const actionSchema = z.discriminatedUnion('type', [
  /** `memberId` null unassigns. */
  z.strictObject({ type: z.literal('assign'), memberId: memberIdField.nullable() }),
  z.strictObject({ type: z.literal('set_status'), status: z.enum(TICKET_STATUSES.filter((s) => s !== 'merged') as ['new', 'open', 'pending', 'resolved', 'closed']) }),
  z.strictObject({ type: z.literal('set_priority'), priority: z.enum(PRIORITIES) }),
  z.strictObject({ type: z.literal('add_tags'), tags: tagsField.pipe(z.array(z.string().max(TAG_MAX)).min(1)) }),
  z.strictObject({ type: z.literal('remove_tags'), tags: tagsField.pipe(z.array(z.string().max(TAG_MAX)).min(1)) }),
  z.strictObject({ type: z.literal('add_note'), content: text }),
  z.strictObject({ type: z.literal('send_reply'), content: text }),
  z.strictObject({ type: z.literal('notify_member'), memberId: memberIdField, message: z.string().max(1000).optional() }),
]);
export type ActionInput = z.output<typeof actionSchema>;

export const createAutomationBody = z.strictObject({
  name: nameField(),
  triggerEvent: z.enum(AUTOMATION_TRIGGERS),
  conditions: conditionsSchema.optional(),
  actions: z.array(actionSchema).max(ACTIONS_MAX).optional(),
  enabled: z.boolean().optional(),
});
export type CreateAutomationInput = z.output<typeof createAutomationBody>;

export const updateAutomationBody = z.strictObject({
  name: nameField().optional(),
  triggerEvent: z.enum(AUTOMATION_TRIGGERS).optional(),
  conditions: conditionsSchema.optional(),
  actions: z.array(actionSchema).max(ACTIONS_MAX).optional(),
  enabled: z.boolean().optional(),
  /** 0-based place in the evaluation order; the others shift. */
  position: z.number().int().min(0).max(AUTOMATIONS_MAX).optional(),
});
export type UpdateAutomationInput = z.output<typeof updateAutomationBody>;

export const testAutomationBody = z.strictObject({
  resourceType: z.enum(['ticket']),
  resourceId: ticketIdField,
});

export const automationSchema = automationSnapshotSchema.meta({ id: 'AutomationRule' });
export const executionSchema = executionSnapshotSchema.meta({ id: 'AutomationExecution' });
const conditionResult = z.object({ field: z.string(), operator: z.string(), passed: z.boolean() });
export const automationTestSchema = z
  .object({
    object: z.literal('automation_test'),
    ruleId: z.string(),
    resourceType: z.literal('ticket'),
    resourceId: z.string(),
    wouldMatch: z.boolean(),
    conditionResults: z.object({ all: z.array(conditionResult), any: z.array(conditionResult) }),
    actionsWouldExecute: z.array(z.object({ action: z.string(), success: z.boolean(), error: z.string().nullable() })),
  })
  .meta({ id: 'AutomationTest' });
export type AutomationTestResult = z.output<typeof automationTestSchema>;

// ---------- operations ----------

const automations = { service: 'ticketing', tag: 'Automations', keys: 'staff', permission: 'manage_automations' } as const;
const ruleParams = { teamId: 'team', ruleId: 'rule' } as const;
const writeErrors = ['parameter_missing', 'parameter_invalid', 'invalid_json', 'resource_not_found', 'idempotency_key_in_use'] as const;

export const AUTOMATIONS = defineOperations({
  listAutomations: {
    ...automations,
    method: 'GET',
    path: '/teams/{teamId}/automations',
    summary: 'List automation rules in evaluation order',
    description: 'Every rule of the team and partition, in the order they run (`position`, then creation). Not paginated: a team has at most 100 rules.',
    params: { teamId: 'team' },
    success: { status: 200, data: z.array(automationSchema), shape: 'envelope' },
    errors: [],
  },
  createAutomation: {
    ...automations,
    method: 'POST',
    path: '/teams/{teamId}/automations',
    summary: 'Create an automation rule',
    description:
      'Appended at the end of the evaluation order. `triggerEvent`: ticket.created | ticket.updated | ticket.closed | ticket.message_added | ' +
      'ticket.assigned. `conditions`: `{all, any}` of `{field, operator, value}`: the rule matches when every `all` passes and, if `any` is ' +
      'non-empty, at least one `any` passes. Operators: equals, not_equals, contains, not_contains (substring, or membership for tags), ' +
      'in, not_in (value is an array), greater_than, less_than (numbers), is_empty, is_not_empty, changed (no value), changed_to, ' +
      'changed_from (read the event\'s change list). Actions: assign {memberId|null}, set_status {status}, set_priority {priority}, ' +
      'add_tags {tags}, remove_tags {tags}, add_note {content} (internal note), send_reply {content} (public agent message), ' +
      'notify_member {memberId, message?}. A member id not of this team is a 400 (param actions.N.memberId). At most 100 rules (409). ' +
      'Rules run once per event, in order, inside the transaction that applies their actions; changes made by rules trigger rules ' +
      'again up to depth 3, then the run is stopped and logged (docs/adr/0028).',
    params: { teamId: 'team' },
    body: createAutomationBody,
    success: { status: 201, data: automationSchema, shape: 'envelope' },
    errors: [...writeErrors, 'resource_conflict'],
  },
  getAutomation: {
    ...automations,
    method: 'GET',
    path: '/teams/{teamId}/automations/{ruleId}',
    summary: 'Retrieve an automation rule',
    params: ruleParams,
    success: { status: 200, data: automationSchema, shape: 'envelope' },
    errors: ['resource_not_found'],
  },
  updateAutomation: {
    ...automations,
    method: 'PATCH',
    path: '/teams/{teamId}/automations/{ruleId}',
    summary: 'Update an automation rule',
    description:
      'Only given fields change; `conditions` and `actions` are replaced whole. `position` moves the rule in the evaluation order ' +
      '(clamped to the end). A PATCH that changes nothing answers 200 and emits nothing. `executionCount` is not writable.',
    params: ruleParams,
    body: updateAutomationBody,
    success: { status: 200, data: automationSchema, shape: 'envelope' },
    errors: [...writeErrors],
  },
  deleteAutomation: {
    ...automations,
    method: 'DELETE',
    path: '/teams/{teamId}/automations/{ruleId}',
    summary: 'Delete an automation rule',
    description: 'Its execution log goes with it.',
    params: ruleParams,
    success: { status: 200, data: deletedSchema, shape: 'envelope' },
    errors: ['resource_not_found'],
  },
  testAutomation: {
    ...automations,
    method: 'POST',
    path: '/teams/{teamId}/automations/{ruleId}/test',
    summary: 'Dry-run an automation rule on a ticket',
    description:
      'Evaluates the conditions against the ticket as it is now (no triggering event: `changed` is false, `changed_to` compares the ' +
      'current value) and checks each action as it would run (`success` false with an `error` when it could not, e.g. an assignee no ' +
      'longer in the team). Writes nothing, emits nothing, does not count as an execution; works on disabled rules too.',
    params: ruleParams,
    body: testAutomationBody,
    success: { status: 200, data: automationTestSchema, shape: 'envelope' },
    errors: ['parameter_missing', 'parameter_invalid', 'invalid_json', 'resource_not_found'],
  },
  listAutomationExecutions: {
    ...automations,
    method: 'GET',
    path: '/teams/{teamId}/automations/{ruleId}/executions',
    summary: "A rule's execution log, newest first",
    description: 'One entry per event the rule matched: `executed` with each action\'s outcome, or `stopped` at the depth limit. Kept 90 days.',
    params: ruleParams,
    query: z.strictObject({ ...paginationFields(20, 100) }),
    success: { status: 200, data: z.array(executionSchema), shape: 'envelope', pagination: 'meta' },
    errors: ['parameter_invalid', 'resource_not_found'],
  },
});
