import { z } from 'zod';
import { messageSnapshotSchema, PRIORITIES, SENDERS, TICKET_STATUSES, ticketSnapshotSchema } from '../../catalog/ticketing';
import { slaStateSchema } from '../../sla';
import { charLength, freeFormObject, metadataSchema, NAME_MAX, notesField, paginationFields, SEARCH_MAX, tagsField } from '../../fields';
import { hasPrefix } from '../../ids';
import { defineOperations, deletedSchema } from '../operation';

/** The ticketing service's public operations: tickets and their messages (docs/adr/0004). */

export const TITLE_MAX = 255;
export const CONTENT_MAX = 65_536;
export const INITIAL_MESSAGES_MAX = 100;

const titleField = z.string().refine((s) => s.trim().length > 0, { message: 'must not be empty' });
const customerIdField = z.string().refine((s) => hasPrefix(s, 'customer'), { message: 'must be a customer id (cus_…)' });
const memberIdField = z.string().refine((s) => hasPrefix(s, 'member'), { message: 'must be a member id (mem_…)' });
export const ticketIdField = z.string().refine((s) => hasPrefix(s, 'ticket'), { message: 'must be a ticket id (tkt_…)' });
/** A sender's or customer's name on a ticket: at most 255 characters. */
const personName = z.string().max(NAME_MAX);

// ---------- requests ----------

/** A message given at ticket creation: `sender` may also be `ai` there. */
const initialMessageSchema = z.strictObject({
  sender: z.enum(SENDERS),
  content: z.string().min(1).max(CONTENT_MAX),
  senderName: personName.nullable().optional(),
  messageType: z.enum(['internal', 'public']).optional(),
  isInternal: z.boolean().optional(),
});

export const createTicketBody = z.strictObject({
  title: titleField.refine((s) => charLength(s) <= TITLE_MAX, { message: `must be at most ${TITLE_MAX} characters` }).meta({ maxLength: TITLE_MAX }),
  priority: z.enum(PRIORITIES).optional(),
  customerId: customerIdField.nullable().optional(),
  customerEmail: z.email().max(254).nullable().optional(),
  customerName: personName.nullable().optional(),
  messages: z.array(initialMessageSchema).max(INITIAL_MESSAGES_MAX).optional(),
  tags: tagsField.optional(),
  notes: notesField.optional(),
  metadata: metadataSchema.optional(),
  /** `{fieldId: value}`: checked by ticketing against the team's definitions (docs/adr/0022). */
  customFields: freeFormObject().optional(),
});
export type CreateTicketInput = z.output<typeof createTicketBody>;

/** PATCH: every field optional; only the given ones change. The title's length is checked by the service. */
export const updateTicketBody = z.strictObject({
  title: titleField.optional(),
  /** Moves the ticket to another customer (null unlinks it); not in the spec's list (docs/adr/0004). */
  customerId: customerIdField.nullable().optional(),
  /** A member of the ticket's team (400 otherwise), or null to unassign (docs/adr/0025). */
  assignedTo: memberIdField.nullable().optional(),
  status: z.enum(TICKET_STATUSES).optional(),
  priority: z.enum(PRIORITIES).optional(),
  tags: tagsField.optional(),
  notes: notesField.optional(),
  // The 50-key limit applies to the merged result.
  metadata: freeFormObject(null).optional(),
  /** Merged into the stored values; null removes one (docs/adr/0022). */
  customFields: freeFormObject().optional(),
});
export type UpdateTicketInput = z.output<typeof updateTicketBody>;

export const EXPANDABLE = ['customer', 'messages'] as const;
export type Expandable = (typeof EXPANDABLE)[number];

const expandField = z
  .union([z.string(), z.array(z.string())])
  .transform((v) => (Array.isArray(v) ? v : [v]).flatMap((s) => s.split(',')).map((s) => s.trim()).filter(Boolean))
  .pipe(z.array(z.enum(EXPANDABLE)));

/** `expand[]=a&expand[]=b` arrives as the key `expand[]`, `expand=a` as `expand`; both are accepted. */
const expandQuery = { 'expand[]': expandField.optional(), expand: expandField.optional() };

export const listTicketsQuery = z.strictObject({
  status: z.enum(TICKET_STATUSES).optional(),
  priority: z.enum(PRIORITIES).optional(),
  customerId: customerIdField.optional(),
  /** A member id, or `none` for unassigned tickets (docs/adr/0025). */
  assignedTo: z.string().min(1).max(100).optional(),
  search: z.string().max(SEARCH_MAX).optional(),
  ...expandQuery,
  ...paginationFields(20, 100),
});
export type ListTicketsQuery = z.output<typeof listTicketsQuery>;

export const getTicketQuery = z.strictObject(expandQuery);
export type GetTicketQuery = z.output<typeof getTicketQuery>;

/** POST a message: `ai` is accepted only at ticket creation, so it is not in this enum. */
export const addMessageBody = z.strictObject({
  content: z
    .string()
    .max(CONTENT_MAX)
    .refine((s) => s.trim().length > 0, { message: 'must not be empty' }),
  sender: z.enum(['agent', 'customer', 'system']).optional(),
  senderName: personName.nullable().optional(),
  messageType: z.enum(['internal', 'public']).optional(),
  isInternal: z.boolean().optional(),
});
export type AddMessageInput = z.output<typeof addMessageBody>;

/** The thread is paginated like every list, but a page holds up to 100 messages by default. */
export const listMessagesQuery = z.strictObject({ ...paginationFields(100, 100) });

// ---------- responses ----------

/**
 * A message, with its author (as Zendesk's comments carry `author_id` and Front's messages an `author`):
 * `authorId` is the member who wrote it, `senderName` the name shown for it.
 */
export const messageSchema = messageSnapshotSchema
  .extend({
    senderName: z
      .string()
      .nullable()
      .describe("The name shown for the message: as sent, else, for an agent message written with a member's key, that member's name."),
    authorId: z
      .string()
      .nullable()
      .describe(
        "The member (`mem_…`) who wrote it: set for an agent message (a reply or an internal note) sent with a member's key (every " +
          "key a member creates or accepts is theirs; `memberId` in `GET /auth/whoami`); null for customer and system messages, " +
          'messages that came by email or the widget, and keys of no member.',
      ),
  })
  .meta({ id: 'Message' });
export type MessageView = z.output<typeof messageSchema>;

/** What `expand[]=customer` embeds: the customer as ticketing last saw it (null: none, or deleted). */
export const ticketCustomerSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    email: z.string().nullable(),
    status: z.string(),
    sentiment: z.string(),
    tags: z.array(z.string()),
  })
  .meta({ id: 'TicketCustomer' });

/** The spec's Ticket, camelCase, nothing internal; `messages` and `customer` only where present. */
export const ticketSchema = ticketSnapshotSchema
  .extend({
    /** `api`, `email`, `widget` or `import` (docs/adr/0025). */
    channel: z.string(),
    /** `customer` or `member`: who opened the ticket (docs/adr/0025). */
    openedBy: z.enum(['customer', 'member']),
    /** The SLA clock (docs/adr/0026); null when no enabled rule matches the ticket's priority. */
    sla: slaStateSchema.nullable(),
    /** The ticket this one was merged into (status `merged`), else null (docs/adr/0027). */
    mergedInto: z.string().nullable(),
    /** `{fieldId: value}` of the team's ticket custom fields (docs/adr/0022). */
    customFields: z.record(z.string(), z.unknown()),
    messages: z.array(messageSchema).optional(),
    customer: ticketCustomerSchema.nullable().optional(),
  })
  .meta({ id: 'Ticket' });
export type TicketView = z.output<typeof ticketSchema>;

// ---------- merge, SLA rules (docs/adr/0026, 0027) ----------

export const MERGE_SOURCES_MAX = 50;
export const mergeTicketsBody = z.strictObject({
  sourceTicketIds: z
    .array(ticketIdField)
    .min(1)
    .max(MERGE_SOURCES_MAX)
    .refine((ids) => new Set(ids).size === ids.length, { message: 'must not list a ticket twice' }),
});
export type MergeTicketsInput = z.output<typeof mergeTicketsBody>;

// ---------- operations ----------

const ticketParams = { teamId: 'team', ticketId: 'ticket' } as const;
const base = { service: 'ticketing', tag: 'Tickets', keys: 'staff' } as const;
export const TICKETS = defineOperations({
  listTickets: {
    ...base,
    method: 'GET',
    path: '/teams/{teamId}/tickets',
    summary: 'List tickets',
    description:
      'Newest first (createdAt, then id, descending). `assignedTo` is a member id, or `none` for unassigned tickets. `search` is a case-insensitive substring of the title, the customer name and ' +
      'message content (internal notes included: this is a staff endpoint). `expand[]` is repeatable (`customer`, `messages`); ' +
      '`expand=` comma-separated is accepted too. `customer` is the customer as ticketing last saw it, or null. Any other query ' +
      'parameter is a 400.',
    permission: 'view_tickets',
    params: { teamId: 'team' },
    query: listTicketsQuery,
    success: { status: 200, data: z.array(ticketSchema), shape: 'envelope', pagination: 'meta' },
    errors: ['parameter_invalid'],
  },
  createTicket: {
    ...base,
    method: 'POST',
    path: '/teams/{teamId}/tickets',
    summary: 'Create a ticket',
    description:
      'A new ticket is `new`, `normal` priority unless given, channel `api`, unassigned. `openedBy` is `customer` when the first ' +
      'given message is the customer\'s, else `member` (an agent\'s, system or AI message, or none; docs/adr/0025). The first ' +
      'enabled SLA rule for its priority starts its SLA clock. Customer: `customerId` must exist in the team and ' +
      'partition (404); otherwise `customerEmail` must be some customer\'s (422 `customer_not_found`, param customerEmail); otherwise ' +
      'a non-blank `customerName` creates a customer without email. `messages` (oldest first, at most 100) are part of ' +
      '`ticket.created`; the answer carries them. `title` is 1 to 255 characters (code points) and not only whitespace. ' +
      '503 `service_unavailable` when the customers service cannot be reached for a request that names a customer.',
    permission: 'manage_tickets',
    params: { teamId: 'team' },
    body: createTicketBody,
    success: { status: 201, data: ticketSchema, shape: 'envelope' },
    errors: ['parameter_missing', 'parameter_invalid', 'invalid_json', 'resource_not_found', 'customer_not_found', 'idempotency_key_in_use'],
  },
  getTicket: {
    ...base,
    method: 'GET',
    path: '/teams/{teamId}/tickets/{ticketId}',
    summary: 'Retrieve a ticket with its messages',
    description: 'Always includes `messages` (oldest first); `expand[]=customer` embeds the customer too.',
    permission: 'view_tickets',
    params: ticketParams,
    query: getTicketQuery,
    success: { status: 200, data: ticketSchema, shape: 'envelope' },
    errors: ['parameter_invalid', 'resource_not_found'],
  },
  updateTicket: {
    ...base,
    method: 'PATCH',
    path: '/teams/{teamId}/tickets/{ticketId}',
    summary: 'Update a ticket',
    description:
      'Only given fields change; a PATCH that changes nothing answers 200 and emits nothing. `status: merged` is a 400 (param status). ' +
      '`assignedTo` must be a member of the team (400, param assignedTo, otherwise); null unassigns; an assignment emits ' +
      '`ticket.assigned` besides `ticket.updated`. A `merged` ticket cannot be changed (409 resource_conflict). ' +
      'A status or priority change moves the SLA clock (see SLA rules). ' +
      'Becoming `resolved` sets resolvedAt and closedAt; becoming `closed` sets closedAt; reopening clears both. `metadata` is merged ' +
      '(null removes a key; at most 50 keys after merging). A title over 255 characters is refused unless it is the current title. ' +
      '`customerId` (not in the spec\'s list) moves the ticket to another customer, null unlinks it. The answer has no `messages`.',
    permission: 'manage_tickets',
    params: ticketParams,
    body: updateTicketBody,
    success: { status: 200, data: ticketSchema, shape: 'envelope' },
    errors: ['parameter_missing', 'parameter_invalid', 'invalid_json', 'resource_not_found', 'idempotency_key_in_use'],
  },
  deleteTicket: {
    ...base,
    method: 'DELETE',
    path: '/teams/{teamId}/tickets/{ticketId}',
    summary: 'Delete a ticket and all its messages',
    description: 'Permanent. Answers `{id, deleted: true}` (`id` is additive to the spec\'s `{deleted: true}`).',
    permission: 'manage_tickets',
    params: ticketParams,
    success: { status: 200, data: deletedSchema, shape: 'envelope' },
    errors: ['resource_not_found'],
  },
  listMessages: {
    ...base,
    tag: 'Messages',
    method: 'GET',
    path: '/teams/{teamId}/tickets/{ticketId}/messages',
    summary: 'List a ticket\'s messages',
    description: 'Oldest first; paginated like every list, with a default (and maximum) page size of 100 so a normal thread is one page.',
    permission: 'view_tickets',
    params: ticketParams,
    query: listMessagesQuery,
    success: { status: 200, data: z.array(messageSchema), shape: 'envelope', pagination: 'meta' },
    errors: ['parameter_invalid', 'resource_not_found'],
  },
  addMessage: {
    ...base,
    tag: 'Messages',
    method: 'POST',
    path: '/teams/{teamId}/tickets/{ticketId}/messages',
    summary: 'Add a message to a ticket',
    description:
      'Answers 201. `sender` defaults to `agent` (`ai` only at ticket creation). `messageType: internal` or `isInternal: true` makes ' +
      'an internal note; when both are sent they must agree (400, param isInternal). No message changes the ticket\'s status. ' +
      'The author: an agent message sent with a member\'s key records that member as `authorId`, and `senderName` defaults to ' +
      'their name (a `senderName` sent wins: the name shown to the customer). Emits `ticket.message_added` (its message carries ' +
      '`authorId` too; the envelope\'s `actor` is the member).',
    permission: 'manage_tickets',
    params: ticketParams,
    body: addMessageBody,
    success: { status: 201, data: messageSchema, shape: 'envelope' },
    errors: ['parameter_missing', 'parameter_invalid', 'invalid_json', 'resource_not_found', 'idempotency_key_in_use'],
  },
  mergeTickets: {
    ...base,
    method: 'POST',
    path: '/teams/{teamId}/tickets/{ticketId}/merge',
    summary: 'Merge tickets into this one',
    description:
      'Merges `sourceTicketIds` (1 to 50 distinct tickets of the same team and partition, 404 otherwise) into the target `{ticketId}` ' +
      '(docs/adr/0027), all in one transaction: every source becomes `merged` with `mergedInto` the target, its messages are copied ' +
      'into the target\'s thread in time order (the sources keep theirs), the target\'s tags become the union. Emits `ticket.merged` ' +
      '(the target and the source ids) and `ticket.updated` for each ticket. A merged ticket (target or source) cannot be merged or ' +
      'changed again (409 resource_conflict); the target cannot be among its sources (400, param sourceTicketIds). Answers the target ' +
      'with its messages.',
    permission: 'manage_tickets',
    params: ticketParams,
    body: mergeTicketsBody,
    success: { status: 200, data: ticketSchema, shape: 'envelope' },
    errors: ['parameter_missing', 'parameter_invalid', 'invalid_json', 'resource_not_found', 'resource_conflict', 'idempotency_key_in_use'],
  },
});
