import { z } from 'zod';
import { customerStatusSnapshotSchema } from '../../catalog/customers';
import { defineOperations } from '../operation';

/** Customer statuses (docs/adr/0006): the built-in ones and the team's own. */

export const STATUS_KEY_RE = /^[a-z0-9][a-z0-9_-]{0,63}$/;
export const STATUS_POSITION_MIN = 4;
export const STATUS_POSITION_MAX = 10_000;
const labelField = z.string().trim().min(1).max(50);
/** `#rrggbb`, either case; stored lowercase. */
const colorField = z
  .string()
  .regex(/^#[0-9a-fA-F]{6}$/, { message: 'must be a hex color #rrggbb' })
  .transform((c) => c.toLowerCase());
const positionField = z.number().int().min(STATUS_POSITION_MIN).max(STATUS_POSITION_MAX);

export const createStatusBody = z.strictObject({
  key: z.string().regex(STATUS_KEY_RE, { message: "must be 1 to 64 of a-z, 0-9, '_' or '-', starting with a letter or digit" }),
  label: labelField,
  color: colorField.optional(),
  position: positionField.optional(),
});
export type CreateStatusInput = z.output<typeof createStatusBody>;

export const updateStatusBody = z.strictObject({ label: labelField.optional(), color: colorField.optional(), position: positionField.optional() });
export type UpdateStatusInput = z.output<typeof updateStatusBody>;

export const customerStatusSchema = customerStatusSnapshotSchema.meta({ id: 'CustomerStatus' });

const statuses = { service: 'customers', tag: 'Customer statuses', keys: 'staff' } as const;
const statusParams = { teamId: 'team', statusKey: 'slug' } as const;

export const CUSTOMER_STATUSES = defineOperations({
  listCustomerStatuses: {
    ...statuses,
    method: 'GET',
    path: '/teams/{teamId}/customer-statuses',
    summary: 'List customer statuses',
    description:
      'Not shown by the spec (docs/adr/0006): the four built-ins first (active, inactive, churned, pending; `isProtected`), then the ' +
      'team\'s own by position, then key. Not paginated.',
    permission: 'view_customers',
    params: { teamId: 'team' },
    success: { status: 200, data: z.array(customerStatusSchema), shape: 'envelope' },
    errors: ['parameter_invalid'],
  },
  createCustomerStatus: {
    ...statuses,
    method: 'POST',
    path: '/teams/{teamId}/customer-statuses',
    summary: 'Add a customer status',
    description:
      'Not shown by the spec. `key` is the permanent identifier customers store; a built-in or taken key is 409 (param key). ' +
      '`color` defaults to #6b7280; `position` (4 to 10,000) defaults to one after the last. Needs `manage_settings`.',
    permission: 'manage_settings',
    params: { teamId: 'team' },
    body: createStatusBody,
    success: { status: 201, data: customerStatusSchema, shape: 'envelope' },
    errors: ['parameter_missing', 'parameter_invalid', 'invalid_json', 'resource_conflict', 'idempotency_key_in_use'],
  },
  updateCustomerStatus: {
    ...statuses,
    method: 'PATCH',
    path: '/teams/{teamId}/customer-statuses/{statusKey}',
    summary: 'Change a customer status',
    description: 'Label, color and position; the key cannot change. Built-ins cannot be changed (409).',
    permission: 'manage_settings',
    params: statusParams,
    body: updateStatusBody,
    success: { status: 200, data: customerStatusSchema, shape: 'envelope' },
    errors: ['parameter_missing', 'parameter_invalid', 'invalid_json', 'resource_not_found', 'resource_conflict', 'idempotency_key_in_use'],
  },
  deleteCustomerStatus: {
    ...statuses,
    method: 'DELETE',
    path: '/teams/{teamId}/customer-statuses/{statusKey}',
    summary: 'Delete a customer status',
    description: 'Refused (409) for a built-in, and while any customer has the status.',
    permission: 'manage_settings',
    params: statusParams,
    success: { status: 200, data: z.object({ key: z.string(), deleted: z.literal(true) }), shape: 'envelope' },
    errors: ['resource_not_found', 'resource_conflict'],
  },
});
