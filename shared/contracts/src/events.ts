import { z } from 'zod';
import type { CatalogEntry } from './catalog/read';
import { COMMUNITY_EVENTS } from './catalog/community';
import { NOTIFICATIONS_EVENTS } from './catalog/notifications';
import { VIEW_EVENTS } from './catalog/views';
import { KNOWLEDGE_EVENTS } from './catalog/knowledge';
import { WORKSPACE_EVENTS } from './catalog/workspace';
import { TICKETING_EVENTS } from './catalog/ticketing';
import { slaStateSchema } from './sla';
import { AUTOMATION_EVENTS } from './catalog/automations';
import { GAME_EVENTS } from './catalog/game';
import { SESSION_EVENTS } from './catalog/sessions';

/**
 * The event envelope and the catalog of every event type with its payload schema and version.
 * Event names are data (routing keys on the `helpdesk.events` topic exchange), never derived from
 * class names. Within a version only additive changes are allowed.
 */
export const EVENTS_EXCHANGE = 'helpdesk.events';

export const actorSchema = z.object({
  type: z.enum(['key', 'member', 'system']),
  id: z.string().nullable(),
  /** The console session the member acted through (`ses_…`, docs/adr/0068); absent for a key or the system. */
  sessionId: z.string().optional(),
});
export type Actor = z.infer<typeof actorSchema>;

export const eventEnvelopeSchema = z.object({
  id: z.string().regex(/^evt_[A-Za-z0-9]{8,64}$/),
  type: z.string().regex(/^[a-z_]+(\.[a-z_]+)+$/),
  version: z.number().int().positive(),
  teamId: z.string().uuid(),
  mode: z.enum(['test', 'live']),
  occurredAt: z.string().datetime(),
  requestId: z.string().nullable(),
  actor: actorSchema,
  data: z.record(z.string(), z.unknown()),
});
export type EventEnvelope<D = Record<string, unknown>> = Omit<z.infer<typeof eventEnvelopeSchema>, 'data'> & { data: D };

const iso = z.string().datetime();

export const ticketSnapshotSchema = z.object({
  id: z.string(),
  title: z.string(),
  status: z.enum(['new', 'open', 'pending', 'resolved', 'closed', 'merged']),
  priority: z.enum(['low', 'normal', 'high', 'urgent']),
  customerId: z.string().nullable(),
  assignedTo: z.string().nullable(),
  tags: z.array(z.string()),
  notes: z.string().nullable(),
  messageCount: z.number().int(),
  metadata: z.record(z.string(), z.unknown()),
  /** `{fieldId: value}` of the team's ticket custom fields (docs/adr/0022); absent in events from before them. */
  customFields: z.record(z.string(), z.unknown()).optional(),
  /** Where the ticket came from: `api`, `email`, `widget`, `import`; game damage needs it. */
  channel: z.string(),
  /** `customer` when the opening message is the customer's, else `member` (docs/adr/0025); absent in events from before it. */
  openedBy: z.enum(['customer', 'member']).optional(),
  /** The SLA clock (docs/adr/0026): null when no rule applies; absent in events from before it. */
  sla: slaStateSchema.nullable().optional(),
  /** The ticket a `merged` ticket was merged into (docs/adr/0027); absent in events from before it. */
  mergedInto: z.string().nullable().optional(),
  createdAt: iso,
  updatedAt: iso,
  /**
   * Grows by one with every write of the ticket: consumers keep the snapshot with the highest
   * revision, since updatedAt can repeat (two writes in one millisecond) and events arrive out of
   * order. Absent in events from before it.
   */
  revision: z.number().int().nonnegative().optional(),
  resolvedAt: iso.nullable(),
  closedAt: iso.nullable(),
});
export type TicketSnapshot = z.infer<typeof ticketSnapshotSchema>;

export const messageSnapshotSchema = z.object({
  id: z.string(),
  ticketId: z.string(),
  content: z.string(),
  sender: z.enum(['agent', 'customer', 'system', 'ai']),
  senderName: z.string().nullable(),
  /**
   * The member (`mem_…`) who wrote it: an agent message (a reply or an internal note) sent with a
   * member's key; null otherwise (customer and system messages, email and widget messages, a key of no
   * member). Absent in events from before it.
   */
  authorId: z.string().nullable().optional(),
  isInternal: z.boolean(),
  createdAt: iso,
});
export type MessageSnapshot = z.infer<typeof messageSnapshotSchema>;

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

/** A webhook as events carry it: never its secret. */
export const webhookSnapshotSchema = z.object({
  id: z.string(),
  name: z.string(),
  url: z.string(),
  events: z.array(z.string()),
  isActive: z.boolean(),
  createdAt: iso,
  updatedAt: iso,
});
export type WebhookSnapshot = z.infer<typeof webhookSnapshotSchema>;

/** What changed in an `*.updated` event: the changed field names and their values before the change. */
const changeFields = {
  changes: z.array(z.string()),
  previous: z.record(z.string(), z.unknown()),
};

/** The catalog: event type → {version, data schema}. Publishers and consumers both validate with it. */
export const EVENT_CATALOG = {
  'ticket.created': {
    version: 1, read: { op: 'getTicket' },
    data: z.object({
      ticket: ticketSnapshotSchema,
      /** The messages given at creation, oldest first (they emit no ticket.message_added). Added in v1, optional. */
      messages: z.array(messageSnapshotSchema).optional(),
    }),
  },
  'ticket.updated': {
    version: 1, read: { op: 'getTicket' },
    data: z.object({
      ticket: ticketSnapshotSchema,
      /** Names of the fields that changed, and their values before the change. */
      ...changeFields,
    }),
  },
  'ticket.closed': { version: 1, read: { op: 'getTicket' }, data: z.object({ ticket: ticketSnapshotSchema, previousStatus: z.string() }) },
  'ticket.message_added': {
    version: 1, read: { op: 'listMessages' },
    data: z.object({ ticket: ticketSnapshotSchema, message: messageSnapshotSchema }),
  },
  'ticket.deleted': {
    version: 1, read: { op: 'getTicket' },
    data: z.object({ ticketId: z.string(), customerId: z.string().nullable(), ticket: ticketSnapshotSchema }),
  },

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

  'webhook.created': { version: 1, read: { op: 'getWebhook' }, data: z.object({ webhook: webhookSnapshotSchema }) },
  'webhook.updated': { version: 1, read: { op: 'getWebhook' }, data: z.object({ webhook: webhookSnapshotSchema, ...changeFields }) },
  'webhook.deleted': { version: 1, read: { op: 'getWebhook' }, data: z.object({ webhookId: z.string(), webhook: webhookSnapshotSchema }) },
  /** trigger-test ran: the test event it sent (docs/adr/0021), which the event stream passes on to its listeners. */
  'webhook.test_triggered': { version: 1, read: { op: 'getWebhook' }, data: z.object({ event: z.string(), eventId: z.string(), createdAt: z.string() }) },
  'webhook.disabled': {
    version: 1, read: { op: 'getWebhook' },
    data: z.object({
      webhook: webhookSnapshotSchema,
      /** `gone`: the receiver answered 410; `failing`: every delivery failed for 5 days. */
      reason: z.enum(['gone', 'failing']),
      lastStatusCode: z.number().int().nullable(),
      failingSince: iso.nullable(),
    }),
  },
  // Newer services keep their events in catalog/<service>.ts.
  ...WORKSPACE_EVENTS,
  ...KNOWLEDGE_EVENTS,
  ...COMMUNITY_EVENTS,
  ...NOTIFICATIONS_EVENTS,
  ...VIEW_EVENTS,
  ...TICKETING_EVENTS,
  ...AUTOMATION_EVENTS,
  ...GAME_EVENTS,
  ...SESSION_EVENTS,
} as const satisfies Record<string, CatalogEntry>;

export type EventType = keyof typeof EVENT_CATALOG;
export type EventData<T extends EventType> = z.infer<(typeof EVENT_CATALOG)[T]['data']>;
export const EVENT_TYPES = Object.keys(EVENT_CATALOG) as EventType[];

export function isKnownEventType(type: string): type is EventType {
  return Object.prototype.hasOwnProperty.call(EVENT_CATALOG, type);
}

/**
 * Checks an envelope and, for a catalogued type, its payload. Throws a ZodError naming the field.
 * Unknown types are refused: a publisher must add its event to the catalog first.
 */
export function parseEvent(input: unknown): EventEnvelope {
  const envelope = eventEnvelopeSchema.parse(input);
  if (!isKnownEventType(envelope.type)) throw new Error(`unknown event type ${envelope.type}`);
  const entry = EVENT_CATALOG[envelope.type];
  if (envelope.version !== entry.version) throw new Error(`event ${envelope.type} v${envelope.version}: catalog has v${entry.version}`);
  entry.data.parse(envelope.data);
  return envelope as EventEnvelope;
}

/** Topic-pattern match with AMQP semantics: `*` is one word, `#` zero or more words. */
export function topicMatches(pattern: string, routingKey: string): boolean {
  const p = pattern.split('.');
  const k = routingKey.split('.');
  const walk = (i: number, j: number): boolean => {
    if (i === p.length) return j === k.length;
    if (p[i] === '#') {
      for (let n = j; n <= k.length; n++) if (walk(i + 1, n)) return true;
      return false;
    }
    if (j === k.length) return false;
    return (p[i] === '*' || p[i] === k[j]) && walk(i + 1, j + 1);
  };
  return walk(0, 0);
}
