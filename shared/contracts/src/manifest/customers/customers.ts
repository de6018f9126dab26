import { z } from 'zod';
import { customerSnapshotSchema, SENTIMENTS } from '../../catalog/customers';
import { freeFormObject, metadataSchema, nameField, notesField, paginationFields, SEARCH_MAX, tagsField } from '../../fields';
import { defineOperations, deletedSchema } from '../operation';

/** Customers (docs/adr/0006): the public operations, and the internal ones ticketing asks where it needs an answer at once. */

export const EMAIL_MAX = 254;
const emailField = z.email().max(EMAIL_MAX);
const statusKeyField = z.string().min(1).max(64);

export const createCustomerBody = z.strictObject({
  name: nameField(),
  email: emailField,
  tags: tagsField.optional(),
  notes: notesField.optional(),
  metadata: metadataSchema.optional(),
  /** `{fieldId: value}`: checked against the team's definitions (docs/adr/0022). */
  customFields: freeFormObject().optional(),
});
export type CreateCustomerInput = z.output<typeof createCustomerBody>;

export const updateCustomerBody = z.strictObject({
  name: nameField().optional(),
  email: emailField.optional(),
  status: statusKeyField.optional(),
  /** null clears the override: the calculated value shows again. */
  sentiment: z.enum(SENTIMENTS).nullable().optional(),
  tags: tagsField.optional(),
  notes: notesField.optional(),
  // The 50-key limit applies to the merged result.
  metadata: freeFormObject(null).optional(),
  /** Merged into the stored values; null removes one (docs/adr/0022). */
  customFields: freeFormObject().optional(),
});
export type UpdateCustomerInput = z.output<typeof updateCustomerBody>;

export const listCustomersQuery = z.strictObject({
  status: statusKeyField.optional(),
  sentiment: z.enum(SENTIMENTS).optional(),
  search: z.string().max(SEARCH_MAX).optional(),
  ...paginationFields(20, 100),
});
export type ListCustomersQuery = z.output<typeof listCustomersQuery>;

/** The spec's Customer: the event snapshot without `rev`. */
export const customerSchema = customerSnapshotSchema
  .omit({ rev: true })
  // `{fieldId: value}` of the team's customer custom fields (docs/adr/0022).
  .extend({ customFields: z.record(z.string(), z.unknown()) })
  .meta({ id: 'Customer' });

const customers = { service: 'customers', tag: 'Customers', keys: 'staff' } as const;
const customerParams = { teamId: 'team', customerId: 'customer' } as const;

export const CUSTOMER_RECORDS = defineOperations({
  listCustomers: {
    ...customers,
    method: 'GET',
    path: '/teams/{teamId}/customers',
    summary: 'List customers',
    description:
      'Newest first. `status` is a built-in or team-added status (anything else is a 400); `search` is a case-insensitive substring ' +
      'of name or email.',
    permission: 'view_customers',
    params: { teamId: 'team' },
    query: listCustomersQuery,
    success: { status: 200, data: z.array(customerSchema), shape: 'envelope', pagination: 'meta' },
    errors: ['parameter_invalid'],
  },
  createCustomer: {
    ...customers,
    method: 'POST',
    path: '/teams/{teamId}/customers',
    summary: 'Create a customer',
    description:
      'A new customer is `active` and `neutral` with no tickets. The email is unique per team and partition, case-insensitively ' +
      '(409 `resource_conflict`, param email). `status` and `sentiment` are not create fields.',
    permission: 'manage_customers',
    params: { teamId: 'team' },
    body: createCustomerBody,
    success: { status: 201, data: customerSchema, shape: 'envelope' },
    errors: ['parameter_missing', 'parameter_invalid', 'invalid_json', 'resource_conflict', 'idempotency_key_in_use'],
  },
  getCustomer: {
    ...customers,
    method: 'GET',
    path: '/teams/{teamId}/customers/{customerId}',
    summary: 'Retrieve a customer',
    permission: 'view_customers',
    params: customerParams,
    success: { status: 200, data: customerSchema, shape: 'envelope' },
    errors: ['parameter_invalid', 'resource_not_found'],
  },
  updateCustomer: {
    ...customers,
    method: 'PATCH',
    path: '/teams/{teamId}/customers/{customerId}',
    summary: 'Update a customer',
    description:
      'Only given fields change. `sentiment` sets an override of the calculated value (null removes it). `metadata` is merged (null ' +
      'removes a key; at most 50 keys after merging). The calculated sentiment averages the AFINN scores of the customer\'s 10 newest ' +
      'public messages: ≥ 0.05 positive, ≤ −0.05 negative, otherwise neutral.',
    permission: 'manage_customers',
    params: customerParams,
    body: updateCustomerBody,
    success: { status: 200, data: customerSchema, shape: 'envelope' },
    errors: ['parameter_missing', 'parameter_invalid', 'invalid_json', 'resource_not_found', 'resource_conflict', 'idempotency_key_in_use'],
  },
  deleteCustomer: {
    ...customers,
    method: 'DELETE',
    path: '/teams/{teamId}/customers/{customerId}',
    summary: 'Delete a customer',
    description: 'Its group memberships go with it; its tickets are kept and unlinked (asynchronously, by event). Answers `{id, deleted: true}`.',
    permission: 'manage_customers',
    params: customerParams,
    success: { status: 200, data: deletedSchema, shape: 'envelope' },
    errors: ['resource_not_found'],
  },

});

/**
 * The customers service's internal operations, asked by ticketing where it needs an answer at once.
 * Never routed by the gateway. The caller's forwarded token gives the team and partition; no customer
 * permission is needed (creating a ticket needs `manage_tickets`), but a publishable key is refused.
 */
export const CUSTOMERS_INTERNAL = defineOperations({
  findCustomerByEmail: {
    ...customers,
    internal: true,
    method: 'GET',
    path: '/internal/customers',
    summary: 'The customer with this email (case-insensitive)',
    permission: null,
    params: {},
    query: z.strictObject({ email: z.string().min(1).max(EMAIL_MAX) }),
    success: { status: 200, data: customerSnapshotSchema, shape: 'envelope' },
    errors: ['parameter_missing', 'parameter_invalid', 'resource_not_found'],
  },
  getCustomerSnapshot: {
    ...customers,
    internal: true,
    method: 'GET',
    path: '/internal/customers/{customerId}',
    summary: 'A customer as events carry it (with rev)',
    permission: null,
    params: { customerId: 'customer' },
    success: { status: 200, data: customerSnapshotSchema, shape: 'envelope' },
    errors: ['resource_not_found'],
  },
  createImplicitCustomer: {
    ...customers,
    internal: true,
    method: 'POST',
    path: '/internal/customers',
    summary: 'A customer known only by name (a ticket that names only customerName)',
    permission: null,
    params: {},
    body: z.strictObject({ name: nameField() }),
    success: { status: 201, data: customerSnapshotSchema, shape: 'envelope' },
    errors: ['parameter_missing', 'parameter_invalid'],
  },
});
