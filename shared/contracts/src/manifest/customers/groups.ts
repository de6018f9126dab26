import { z } from 'zod';
import { customerGroupSnapshotSchema, groupMemberSnapshotSchema } from '../../catalog/customers';
import { freeFormObject, nameField, paginationFields, SEARCH_MAX } from '../../fields';
import { defineOperations } from '../operation';

/** Customer groups and their members (docs/adr/0006); answered without the envelope, as the spec shows. */

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

const groups = { service: 'customers', tag: 'Customer groups', keys: 'staff' } as const;
const groupParams = { teamId: 'team', groupId: 'uuid' } as const;
const BARE = 'Answered without the success envelope, as the spec shows for customer groups; the request id is in `x-svc-request-id`.';

export const CUSTOMER_GROUPS = defineOperations({
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

});
