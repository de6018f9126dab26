import { z } from 'zod';
import { changeFields, iso } from './common';
import type { CatalogEntry } from './read';

/** The customers service's events and the snapshots they carry: customers, groups and their members, statuses. */

export const SENTIMENTS = ['positive', 'neutral', 'negative'] as const;
export const BUILT_IN_CUSTOMER_STATUSES = ['active', 'inactive', 'churned', 'pending'] as const;

/** A customer as events carry it (the public Customer plus `rev`, which projections order by). */
export const customerSnapshotSchema = z.object({
  id: z.string(),
  name: z.string(),
  /** Null only for customers created implicitly (a ticket that named only `customerName`). */
  email: z.string().nullable(),
  status: z.string(),
  sentiment: z.enum(SENTIMENTS),
  tags: z.array(z.string()),
  notes: z.string().nullable(),
  metadata: z.record(z.string(), z.unknown()),
  /** `{fieldId: value}` of the team's customer custom fields (docs/adr/0022); absent in events from before them. */
  customFields: z.record(z.string(), z.unknown()).optional(),
  ticketCount: z.number().int(),
  createdAt: iso,
  updatedAt: iso,
  /** Bumped by every change: a consumer keeping a projection applies an event only when its rev is newer. */
  rev: z.number().int().nonnegative(),
});
export type CustomerSnapshot = z.infer<typeof customerSnapshotSchema>;

export const customerGroupSnapshotSchema = z.object({
  id: z.string().uuid(),
  name: z.string(),
  slug: z.string(),
  description: z.string().nullable(),
  externalId: z.string().nullable(),
  customFields: z.record(z.string(), z.unknown()),
  customerCount: z.number().int(),
  createdAt: iso,
  updatedAt: iso,
});
export type CustomerGroupSnapshot = z.infer<typeof customerGroupSnapshotSchema>;

/** A group member entry (the spec's `{id, object, name, email, joinedGroupAt}`, without `object`). */
export const groupMemberSnapshotSchema = z.object({
  id: z.string(),
  name: z.string(),
  email: z.string().nullable(),
  joinedGroupAt: iso,
});

export const customerStatusSnapshotSchema = z.object({
  key: z.string(),
  label: z.string(),
  color: z.string(),
  position: z.number().int(),
  isProtected: z.boolean(),
});
export type CustomerStatusSnapshot = z.infer<typeof customerStatusSnapshotSchema>;

export const CUSTOMER_EVENTS = {
  'customer.created': { version: 1, read: { op: 'getCustomer' }, data: z.object({ customer: customerSnapshotSchema }) },
  'customer.updated': { version: 1, read: { op: 'getCustomer' }, data: z.object({ customer: customerSnapshotSchema, ...changeFields }) },
  'customer.deleted': { version: 1, read: { op: 'getCustomer' }, data: z.object({ customerId: z.string(), customer: customerSnapshotSchema }) },
  /**
   * A widget sign-up with an email not confirmed yet (docs/adr/0040): the code the notifications service
   * mails to the customer, which the visitor types into the widget. The team's own data: its holder
   * can do no more than the team's keys can (set the customer's status).
   */
  'customer.confirmation_requested': {
    version: 1, read: { permission: 'manage_customers' },
    data: z.object({ customer: z.object({ id: z.string(), name: z.string(), email: z.string() }), code: z.string(), expiresAt: iso }),
  },

  'customer_group.created': { version: 1, read: { op: 'getCustomerGroup' }, data: z.object({ group: customerGroupSnapshotSchema }) },
  'customer_group.updated': { version: 1, read: { op: 'getCustomerGroup' }, data: z.object({ group: customerGroupSnapshotSchema, ...changeFields }) },
  'customer_group.deleted': {
    version: 1, read: { op: 'getCustomerGroup' },
    data: z.object({ groupId: z.string(), group: customerGroupSnapshotSchema, membersDetached: z.number().int() }),
  },
  'customer_group.member_added': {
    version: 1, read: { op: 'listCustomerGroupMembers' },
    data: z.object({ group: customerGroupSnapshotSchema, member: groupMemberSnapshotSchema }),
  },
  'customer_group.member_removed': {
    version: 1, read: { op: 'listCustomerGroupMembers' },
    data: z.object({
      group: customerGroupSnapshotSchema,
      member: groupMemberSnapshotSchema,
      /** `removed` by the members endpoint, or `customer_deleted`. */
      reason: z.enum(['removed', 'customer_deleted']),
    }),
  },

  'customer_status.created': { version: 1, read: { op: 'listCustomerStatuses' }, data: z.object({ status: customerStatusSnapshotSchema }) },
  'customer_status.updated': { version: 1, read: { op: 'listCustomerStatuses' }, data: z.object({ status: customerStatusSnapshotSchema, ...changeFields }) },
  'customer_status.deleted': { version: 1, read: { op: 'listCustomerStatuses' }, data: z.object({ key: z.string(), status: customerStatusSnapshotSchema }) },
} as const satisfies Record<string, CatalogEntry>;
