import { z } from 'zod';
import { CUSTOM_FIELD_CONTENT_TYPES, CUSTOM_FIELD_TYPES, customFieldSnapshotSchema } from '../../catalog/workspace';
import { defineOperations, deletedSchema } from '../operation';
import { customFields, PER_TEAM, team, WRITE } from './common';

/** Custom field definitions (docs/adr/0022). */

/** Definitions per team and record type (docs/adr/0022). */
export const CUSTOM_FIELDS_PER_TYPE_MAX = 100;
export const CUSTOM_FIELD_OPTIONS_MAX = 100;
export const customFieldSchema = customFieldSnapshotSchema.meta({ id: 'CustomField' });
export const listCustomFieldsQuery = z.strictObject({ entity: z.enum(CUSTOM_FIELD_CONTENT_TYPES).optional() });
const optionsField = z
  .array(z.string().trim().min(1).max(100))
  .min(1)
  .max(CUSTOM_FIELD_OPTIONS_MAX)
  .refine((o) => new Set(o).size === o.length, { message: 'must not repeat an option' });
const boundField = z.number().refine(Number.isFinite, { message: 'must be a finite number' });
const customFieldEditable = {
  label: z.string().trim().min(1).max(100),
  options: optionsField.nullable().optional(),
  defaultValue: z.union([z.string(), z.number(), z.boolean()]).nullable().optional(),
  minValue: boundField.nullable().optional(),
  maxValue: boundField.nullable().optional(),
  required: z.boolean().optional(),
};
export const createCustomFieldBody = z.strictObject({
  contentType: z.enum(CUSTOM_FIELD_CONTENT_TYPES),
  fieldType: z.enum(CUSTOM_FIELD_TYPES).optional().default('text'),
  ...customFieldEditable,
});
export type CreateCustomFieldInput = z.output<typeof createCustomFieldBody>;
/** `contentType` and `fieldType` cannot change: the values already stored were checked against them. */
export const updateCustomFieldBody = z.strictObject({ ...customFieldEditable, label: customFieldEditable.label.optional() });
export type UpdateCustomFieldInput = z.output<typeof updateCustomFieldBody>;
export const reorderCustomFieldsBody = z.strictObject({
  contentType: z.enum(CUSTOM_FIELD_CONTENT_TYPES),
  fieldIds: z.array(z.string().min(1).max(100)).max(CUSTOM_FIELDS_PER_TYPE_MAX),
});
export type ReorderCustomFieldsInput = z.output<typeof reorderCustomFieldsBody>;


export const CUSTOM_FIELDS = defineOperations({
  listCustomFields: {
    ...customFields,
    method: 'GET',
    path: '/teams/{teamId}/custom-fields',
    summary: 'List custom field definitions',
    description:
      'In display order: by record type (ticket, customer, article), then `sortOrder`, then creation. `entity` keeps one record type. ' +
      `Not paginated (at most ${CUSTOM_FIELDS_PER_TYPE_MAX} per type). Any secret key of the team reads them. ${PER_TEAM}`,
    permission: null,
    params: team,
    query: listCustomFieldsQuery,
    success: { status: 200, data: z.array(customFieldSchema), shape: 'envelope' },
    errors: ['parameter_invalid'],
  },
  createCustomField: {
    ...customFields,
    method: 'POST',
    path: '/teams/{teamId}/custom-fields',
    summary: 'Define a custom field',
    description:
      '`fieldType` defaults to `text`. `options` (1 to 100 distinct choices) is required for `select` and refused for other types; ' +
      '`minValue`/`maxValue` only for `number`, min ≤ max (param maxValue); `defaultValue` must be a valid value of the field ' +
      '(text: a string of at most 1,000 characters; number: within the bounds; date: YYYY-MM-DD; select: one of the options; ' +
      'checkbox: a boolean). Placed at the end of its type (`sortOrder` one past the last). At most ' +
      `${CUSTOM_FIELDS_PER_TYPE_MAX} per record type (400, param contentType). Tickets, customers and articles then accept ` +
      '`customFields: {fieldId: value}`, checked by their services within seconds (docs/adr/0022). Emits `custom_field.created`.',
    permission: 'manage_settings',
    params: team,
    body: createCustomFieldBody,
    success: { status: 201, data: customFieldSchema, shape: 'envelope' },
    errors: [...WRITE],
  },
  getCustomField: {
    ...customFields,
    method: 'GET',
    path: '/teams/{teamId}/custom-fields/{fieldId}',
    summary: 'Retrieve a custom field definition',
    description: PER_TEAM,
    permission: null,
    params: { teamId: 'team', fieldId: 'customField' },
    success: { status: 200, data: customFieldSchema, shape: 'envelope' },
    errors: ['resource_not_found'],
  },
  updateCustomField: {
    ...customFields,
    method: 'PATCH',
    path: '/teams/{teamId}/custom-fields/{fieldId}',
    summary: 'Change a custom field definition',
    description:
      'Only given fields change; the result must satisfy the same rules as a new definition. `contentType` and `fieldType` cannot ' +
      'change (400 unknown field): values already stored were checked against them; define a new field instead. Values already ' +
      'stored are not re-checked; the next write of a record checks the values it sends. Emits `custom_field.updated` when something changed.',
    permission: 'manage_settings',
    params: { teamId: 'team', fieldId: 'customField' },
    body: updateCustomFieldBody,
    success: { status: 200, data: customFieldSchema, shape: 'envelope' },
    errors: [...WRITE, 'resource_not_found'],
  },
  deleteCustomField: {
    ...customFields,
    method: 'DELETE',
    path: '/teams/{teamId}/custom-fields/{fieldId}',
    summary: 'Delete a custom field definition',
    description:
      'Answers `{deleted: true, id}`. Emits `custom_field.deleted`; the owning service then removes the field\'s values from its ' +
      'records within seconds, and refuses the field in writes (docs/adr/0022).',
    permission: 'manage_settings',
    params: { teamId: 'team', fieldId: 'customField' },
    success: { status: 200, data: deletedSchema, shape: 'envelope' },
    errors: ['resource_not_found'],
  },
  reorderCustomFields: {
    ...customFields,
    method: 'POST',
    path: '/teams/{teamId}/custom-fields/reorder',
    summary: "Set a record type's display order",
    description:
      '`fieldIds` lists every definition of `contentType` exactly once, in the new order (400, param fieldIds, otherwise); ' +
      '`sortOrder` becomes each one\'s position from 0. Answers the type\'s definitions in order. Emits `custom_field.updated` for each moved one.',
    permission: 'manage_settings',
    params: team,
    body: reorderCustomFieldsBody,
    success: { status: 200, data: z.array(customFieldSchema), shape: 'envelope' },
    errors: [...WRITE],
  },
});
