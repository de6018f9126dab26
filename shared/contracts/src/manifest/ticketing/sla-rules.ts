import { z } from 'zod';
import { slaRuleSnapshotSchema } from '../../catalog/ticketing';
import { NAME_MAX } from '../../fields';
import { hasPrefix } from '../../ids';
import { defineOperations, deletedSchema } from '../operation';
import { PRIORITIES } from '../../catalog/ticketing';

/** SLA rules (docs/adr/0026). */

/** Rules per team and partition: the evaluation order stays short enough to read whole, unpaginated. */
export const SLA_RULES_MAX = 100;
/** One year in minutes: a larger target is a mistake, not a promise. */
export const SLA_MINUTES_MAX = 525_600;
const slaMinutes = z.number().int().positive().max(SLA_MINUTES_MAX);
const slaRuleName = z
  .string()
  .max(NAME_MAX)
  .refine((s) => s.trim().length > 0, { message: 'must not be empty' });

export const createSlaRuleBody = z.strictObject({
  name: slaRuleName,
  priorityKey: z.enum(PRIORITIES),
  responseTimeMinutes: slaMinutes,
  resolutionTimeMinutes: slaMinutes,
  use24x7: z.boolean().default(false),
  enabled: z.boolean().default(true),
});
export type CreateSlaRuleInput = z.output<typeof createSlaRuleBody>;

export const updateSlaRuleBody = z.strictObject({
  name: slaRuleName.optional(),
  priorityKey: z.enum(PRIORITIES).optional(),
  responseTimeMinutes: slaMinutes.optional(),
  resolutionTimeMinutes: slaMinutes.optional(),
  use24x7: z.boolean().optional(),
  enabled: z.boolean().optional(),
});
export type UpdateSlaRuleInput = z.output<typeof updateSlaRuleBody>;

export const reorderSlaRulesBody = z.strictObject({
  ruleIds: z
    .array(z.string().refine((s) => hasPrefix(s, 'sla'), { message: 'must be an SLA rule id (sla_…)' }))
    .max(SLA_RULES_MAX)
    .refine((ids) => new Set(ids).size === ids.length, { message: 'must not list a rule twice' }),
});
export type ReorderSlaRulesInput = z.output<typeof reorderSlaRulesBody>;

export const slaRuleSchema = z.object({ object: z.literal('sla_rule') }).extend(slaRuleSnapshotSchema.shape).meta({ id: 'SlaRule' });
export type SlaRuleView = z.output<typeof slaRuleSchema>;

const slaBase = { service: 'ticketing', tag: 'SLA rules', keys: 'staff' } as const;
const slaRuleParams = { teamId: 'team', ruleId: 'sla' } as const;
const SLA_RULES_INTRO =
  'SLA rules (docs/adr/0026) are kept per team and partition in evaluation order: a ticket follows the first enabled rule whose ' +
  '`priorityKey` equals its priority. Targets count business hours (the team\'s timezone, weekday schedule and holidays; every hour ' +
  'when business hours are off) unless `use24x7`. The clock pauses while the ticket is `pending`. The first public agent reply ' +
  'meets the response target, `resolved`/`closed` the resolution target; a passed due time emits `sla.breached` once. A ' +
  'priority change re-targets (the minutes used so far are kept). Rule changes apply to tickets from their next evaluation ' +
  '(creation or priority change). The ticket\'s `sla.tier` (`slaTierOf`): null until resolved/closed or without a rule; `missed` ' +
  'when the resolution target was breached; `bronze` when resolution was met but the first response was breached or never ' +
  'sent; `silver` when both were met; `gold` when both were met within half the resolution target.';


export const SLA_RULES = defineOperations({
  listSlaRules: {
    ...slaBase,
    method: 'GET',
    path: '/teams/{teamId}/sla/rules',
    summary: 'List SLA rules in evaluation order',
    description: `${SLA_RULES_INTRO} The whole list (at most ${SLA_RULES_MAX} rules), unpaginated.`,
    permission: 'view_tickets',
    params: { teamId: 'team' },
    success: { status: 200, data: z.array(slaRuleSchema), shape: 'envelope' },
    errors: [],
  },
  createSlaRule: {
    ...slaBase,
    method: 'POST',
    path: '/teams/{teamId}/sla/rules',
    summary: 'Create an SLA rule (appended to the evaluation order)',
    description:
      `Minutes are whole and positive, at most ${SLA_MINUTES_MAX}. \`use24x7\` defaults to false, \`enabled\` to true. At most ` +
      `${SLA_RULES_MAX} rules per team and partition (409 beyond). Emits \`sla_rule.created\`. Needs \`manage_settings\`.`,
    permission: 'manage_settings',
    params: { teamId: 'team' },
    body: createSlaRuleBody,
    success: { status: 201, data: slaRuleSchema, shape: 'envelope' },
    errors: ['parameter_missing', 'parameter_invalid', 'invalid_json', 'resource_conflict', 'idempotency_key_in_use'],
  },
  getSlaRule: {
    ...slaBase,
    method: 'GET',
    path: '/teams/{teamId}/sla/rules/{ruleId}',
    summary: 'Retrieve an SLA rule',
    permission: 'view_tickets',
    params: slaRuleParams,
    success: { status: 200, data: slaRuleSchema, shape: 'envelope' },
    errors: ['resource_not_found'],
  },
  updateSlaRule: {
    ...slaBase,
    method: 'PATCH',
    path: '/teams/{teamId}/sla/rules/{ruleId}',
    summary: 'Update an SLA rule',
    description:
      'Only given fields change; the rule keeps its place. A PATCH that changes nothing answers 200 and emits nothing; otherwise ' +
      '`sla_rule.updated`. Tickets already following the rule keep their targets until their next evaluation. Needs `manage_settings`.',
    permission: 'manage_settings',
    params: slaRuleParams,
    body: updateSlaRuleBody,
    success: { status: 200, data: slaRuleSchema, shape: 'envelope' },
    errors: ['parameter_missing', 'parameter_invalid', 'invalid_json', 'resource_not_found', 'idempotency_key_in_use'],
  },
  deleteSlaRule: {
    ...slaBase,
    method: 'DELETE',
    path: '/teams/{teamId}/sla/rules/{ruleId}',
    summary: 'Delete an SLA rule',
    description:
      'The rules after it move up one place. Tickets that followed it keep their SLA state (a rule id that no longer resolves). ' +
      'Emits `sla_rule.deleted`. Needs `manage_settings`.',
    permission: 'manage_settings',
    params: slaRuleParams,
    success: { status: 200, data: deletedSchema, shape: 'envelope' },
    errors: ['resource_not_found'],
  },
  reorderSlaRules: {
    ...slaBase,
    method: 'POST',
    path: '/teams/{teamId}/sla/rules/reorder',
    summary: 'Set the evaluation order of the SLA rules',
    description:
      '`ruleIds` lists every rule of the team and partition exactly once, in the new order (400, param ruleIds, when one is ' +
      'missing, unknown or repeated). Answers the rules in the new order; emits `sla_rule.reordered` when the order changed. ' +
      'Needs `manage_settings`.',
    permission: 'manage_settings',
    params: { teamId: 'team' },
    body: reorderSlaRulesBody,
    success: { status: 200, data: z.array(slaRuleSchema), shape: 'envelope' },
    errors: ['parameter_missing', 'parameter_invalid', 'invalid_json', 'idempotency_key_in_use'],
  },
});
