import { z } from 'zod';
import { hasPrefix } from '@helpdesk/contracts';
import { charLength, keyValueField, metadataSchema, NAME_MAX, notesField, paginationFields, tagsField } from '@helpdesk/kit';

export const TICKET_STATUSES = ['new', 'open', 'pending', 'resolved', 'closed', 'merged'] as const;
export type TicketStatus = (typeof TICKET_STATUSES)[number];
export const PRIORITIES = ['low', 'normal', 'high', 'urgent'] as const;
export type Priority = (typeof PRIORITIES)[number];
export const SENDERS = ['agent', 'customer', 'system', 'ai'] as const;
export type Sender = (typeof SENDERS)[number];

export const TITLE_MAX = 255;
export const CONTENT_MAX = 65_536;
export const INITIAL_MESSAGES_MAX = 100;

export const titleField = z
  .string()
  .refine((s) => s.trim().length > 0, { message: 'must not be empty' });

export const customerIdField = z
  .string()
  .refine((s) => hasPrefix(s, 'customer'), { message: "must be a customer id (cus_…)" });

/** A sender's or customer's name on a ticket: at most 255 characters. */
export const nameField = z.string().max(NAME_MAX);

/** A message given at ticket creation: `sender` may also be `ai` there. */
export const initialMessageSchema = z.strictObject({
  // z.string() first: kit's parseInput reports a missing *enum* field as parameter_invalid, not _missing.
  sender: z.string().pipe(z.enum(SENDERS)),
  content: z.string().min(1).max(CONTENT_MAX),
  senderName: nameField.nullable().optional(),
  messageType: z.enum(['internal', 'public']).optional(),
  isInternal: z.boolean().optional(),
});

export const createTicketSchema = z.strictObject({
  title: titleField.refine((s) => charLength(s) <= TITLE_MAX, { message: `must be at most ${TITLE_MAX} characters` }),
  priority: z.enum(PRIORITIES).optional(),
  customerId: customerIdField.nullable().optional(),
  customerEmail: z.email().max(254).nullable().optional(),
  customerName: nameField.nullable().optional(),
  messages: z.array(initialMessageSchema).max(INITIAL_MESSAGES_MAX).optional(),
  tags: tagsField.optional(),
  notes: notesField.optional(),
  metadata: metadataSchema.optional(),
});
export type CreateTicketInput = z.infer<typeof createTicketSchema>;

/** PATCH: every field optional; only the given ones change. The title's length is checked by the service. */
export const updateTicketSchema = z.strictObject({
  title: titleField.optional(),
  /** Moves the ticket to another customer (null unlinks it); not in the spec's list (docs/adr/0004). */
  customerId: customerIdField.nullable().optional(),
  status: z.enum(TICKET_STATUSES).optional(),
  priority: z.enum(PRIORITIES).optional(),
  tags: tagsField.optional(),
  notes: notesField.optional(),
  // The 50-key limit applies to the merged result (tickets/service.ts).
  metadata: keyValueField(null).optional(),
});
export type UpdateTicketInput = z.infer<typeof updateTicketSchema>;

export const EXPANDABLE = ['customer', 'messages'] as const;
export type Expandable = (typeof EXPANDABLE)[number];

const expandField = z
  .union([z.string(), z.array(z.string())])
  .transform((v) => (Array.isArray(v) ? v : [v]).flatMap((s) => s.split(',')).map((s) => s.trim()).filter(Boolean))
  .pipe(z.array(z.enum(EXPANDABLE)));

/**
 * List query. Express's query parser hands `expand[]=a&expand[]=b` over as the key `expand[]`
 * (and `expand=a` as `expand`); both are accepted, a string or an array. Anything else is refused.
 */
export const listTicketsQuery = z.strictObject({
  status: z.enum(TICKET_STATUSES).optional(),
  priority: z.enum(PRIORITIES).optional(),
  customerId: customerIdField.optional(),
  assignedTo: z.string().min(1).max(100).optional(),
  search: z.string().max(200).optional(),
  'expand[]': expandField.optional(),
  expand: expandField.optional(),
  ...paginationFields(20, 100),
});
export type ListTicketsQuery = z.infer<typeof listTicketsQuery>;

/** Single retrieval: messages are always included; `expand[]=customer` embeds the customer too. */
export const getTicketQuery = z.strictObject({
  'expand[]': expandField.optional(),
  expand: expandField.optional(),
});
export type GetTicketQuery = z.infer<typeof getTicketQuery>;
