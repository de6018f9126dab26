import { z } from 'zod';
import {
  customerGroupSnapshotSchema,
  customerSnapshotSchema,
  customerStatusSnapshotSchema,
  groupMemberSnapshotSchema,
  SENTIMENTS,
} from '../../catalog/customers';
import { freeFormObject, metadataSchema, nameField, notesField, paginationFields, SEARCH_MAX, tagsField } from '../../fields';
import { defineOperations, deletedSchema } from '../operation';

/** The customers service's public and internal operations: customers, groups, members, statuses (docs/adr/0006). */

export const EMAIL_MAX = 254;
const emailField = z.email().max(EMAIL_MAX);
const statusKeyField = z.string().min(1).max(64);

// ---------- customers ----------

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

// ---------- customer groups ----------

export const GROUP_SLUG_MAX = 100;
export const GROUP_SLUG_RE = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const slugField = z
  .string()
  .max(GROUP_SLUG_MAX)
  .regex(GROUP_SLUG_RE, { message: 'must be lowercase letters and digits in words separated by single dashes' });
const descriptionField = z.string().max(2_000).nullable();

export const createGroupBody = z.strictObject({
  name: nameField(),
  slug: slugField.optional(),
  description: descriptionField.optional(),
  externalId: z.string().trim().min(1).max(255).nullable().optional(),
  customFields: freeFormObject().optional(),
});
export type CreateGroupInput = z.output<typeof createGroupBody>;

/** The spec's name, slug, description, customFields (merged like metadata). externalId is set once, at creation. */
export const updateGroupBody = z.strictObject({
  name: nameField().optional(),
  slug: slugField.optional(),
  description: descriptionField.optional(),
  customFields: freeFormObject(null).optional(),
});
export type UpdateGroupInput = z.output<typeof updateGroupBody>;

export const listGroupsQuery = z.strictObject({ search: z.string().max(SEARCH_MAX).optional(), ...paginationFields(25, 100) });
export type ListGroupsQuery = z.output<typeof listGroupsQuery>;

/** The spec's Customer group: the event snapshot with `object: 'customer_group'`. */
export const customerGroupSchema = z
  .object({ id: z.string().uuid(), object: z.literal('customer_group') })
  .extend(customerGroupSnapshotSchema.omit({ id: true }).shape)
  .meta({ id: 'CustomerGroup' });

// ---------- group members ----------

export const MEMBERS_ADD_MAX = 100;
const memberCustomerId = z.string().min(1).max(100);

/** One of `customerId` or `customerIds` (1 to 100); the service checks that exactly one is given. */
export const addMembersBody = z.strictObject({
  customerId: memberCustomerId.optional(),
  customerIds: z.array(memberCustomerId).min(1).max(MEMBERS_ADD_MAX).optional(),
});
export type AddMembersInput = z.output<typeof addMembersBody>;

export const listMembersQuery = z.strictObject({ ...paginationFields(25, 100) });
export const removeMemberQuery = z.strictObject({ customerId: memberCustomerId });

/** The spec's group member entry: the event's member with `object: 'customer'`. */
export const groupMemberSchema = z
  .object({ id: z.string(), object: z.literal('customer') })
  .extend(groupMemberSnapshotSchema.omit({ id: true }).shape)
  .meta({ id: 'CustomerGroupMember' });

// ---------- customer statuses ----------

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

// ---------- operations ----------

const customers = { service: 'customers', tag: 'Customers', keys: 'staff' } as const;
const groups = { service: 'customers', tag: 'Customer groups', keys: 'staff' } as const;
const statuses = { service: 'customers', tag: 'Customer statuses', keys: 'staff' } as const;
const customerParams = { teamId: 'team', customerId: 'customer' } as const;
const groupParams = { teamId: 'team', groupId: 'uuid' } as const;
const statusParams = { teamId: 'team', statusKey: 'slug' } as const;
const BARE = 'Answered without the success envelope, as the spec shows for customer groups; the request id is in `x-svc-request-id`.';

export const CUSTOMERS = defineOperations({
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

  listCustomerGroups: {
    ...groups,
    method: 'GET',
    path: '/teams/{teamId}/customer-groups',
    summary: 'List customer groups',
    description: `Newest first; \`search\` is a case-insensitive substring of the name; page size 25 by default. ${BARE}`,
    permission: 'view_customers',
    params: { teamId: 'team' },
    query: listGroupsQuery,
    success: { status: 200, data: z.array(customerGroupSchema), shape: 'bare', pagination: 'top' },
    errors: ['parameter_invalid'],
  },
  createCustomerGroup: {
    ...groups,
    method: 'POST',
    path: '/teams/{teamId}/customer-groups',
    summary: 'Create a customer group',
    description:
      'The slug, given or generated from the name (slugify, lowercase, strict), is unique per team and partition: a duplicate is ' +
      `409 (param slug), never silently suffixed. \`externalId\` is unique when set (409, param externalId). ${BARE}`,
    permission: 'manage_customers',
    params: { teamId: 'team' },
    body: createGroupBody,
    success: { status: 201, data: customerGroupSchema, shape: 'bare' },
    errors: ['parameter_missing', 'parameter_invalid', 'invalid_json', 'resource_conflict', 'idempotency_key_in_use'],
  },
  getCustomerGroup: {
    ...groups,
    method: 'GET',
    path: '/teams/{teamId}/customer-groups/{groupId}',
    summary: 'Retrieve a customer group',
    description: BARE,
    permission: 'view_customers',
    params: groupParams,
    success: { status: 200, data: customerGroupSchema, shape: 'bare' },
    errors: ['parameter_invalid', 'resource_not_found'],
  },
  updateCustomerGroup: {
    ...groups,
    method: 'PATCH',
    path: '/teams/{teamId}/customer-groups/{groupId}',
    summary: 'Update a customer group',
    description: `Renaming keeps the slug. \`customFields\` is merged like metadata. \`externalId\` cannot change. ${BARE}`,
    permission: 'manage_customers',
    params: groupParams,
    body: updateGroupBody,
    success: { status: 200, data: customerGroupSchema, shape: 'bare' },
    errors: ['parameter_missing', 'parameter_invalid', 'invalid_json', 'resource_not_found', 'resource_conflict', 'idempotency_key_in_use'],
  },
  deleteCustomerGroup: {
    ...groups,
    method: 'DELETE',
    path: '/teams/{teamId}/customer-groups/{groupId}',
    summary: 'Delete a customer group',
    description: `Its members are detached, not deleted. ${BARE}`,
    permission: 'manage_customers',
    params: groupParams,
    success: { status: 200, data: z.object({ deleted: z.literal(true), id: z.string() }), shape: 'bare' },
    errors: ['resource_not_found'],
  },
  listCustomerGroupMembers: {
    ...groups,
    method: 'GET',
    path: '/teams/{teamId}/customer-groups/{groupId}/members',
    summary: 'List a group\'s members',
    description: `Newest member first, with each customer's current name and email; page size 25 by default. ${BARE}`,
    permission: 'view_customers',
    params: groupParams,
    query: listMembersQuery,
    success: { status: 200, data: z.array(groupMemberSchema), shape: 'bare', pagination: 'top' },
    errors: ['parameter_invalid', 'resource_not_found'],
  },
  addCustomerGroupMembers: {
    ...groups,
    method: 'POST',
    path: '/teams/{teamId}/customer-groups/{groupId}/members',
    summary: 'Add customers to a group',
    description:
      '`customerId` or `customerIds` (1 to 100): neither is 400 parameter_missing, both 400 parameter_invalid (param customerIds). ' +
      'Every id must be a customer of the team and partition (404 naming the first missing one, nothing added). Members already ' +
      `in, and repeats, are skipped; \`total\` counts the ids sent. Answers 200. ${BARE}`,
    permission: 'manage_customers',
    params: groupParams,
    body: addMembersBody,
    success: { status: 200, data: z.object({ added: z.number().int(), total: z.number().int(), skipped: z.number().int() }), shape: 'bare' },
    errors: ['parameter_missing', 'parameter_invalid', 'invalid_json', 'resource_not_found', 'idempotency_key_in_use'],
  },
  removeCustomerGroupMember: {
    ...groups,
    method: 'DELETE',
    path: '/teams/{teamId}/customer-groups/{groupId}/members',
    summary: 'Remove a customer from a group',
    description: `\`customerId\` is required; 404 when the customer is not a member. The customer is kept. ${BARE}`,
    permission: 'manage_customers',
    params: groupParams,
    query: removeMemberQuery,
    success: { status: 200, data: z.object({ removed: z.literal(true), customerId: z.string(), groupId: z.string() }), shape: 'bare' },
    errors: ['parameter_missing', 'parameter_invalid', 'resource_not_found'],
  },

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
