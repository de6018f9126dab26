import { z } from 'zod';

/**
 * The event envelope and the catalog of every event type with its payload schema and version.
 * Event names are data (routing keys on the `helpdesk.events` topic exchange), never derived from
 * class names. Within a version only additive changes are allowed.
 */
export const EVENTS_EXCHANGE = 'helpdesk.events';

export const actorSchema = z.object({
  type: z.enum(['key', 'member', 'system']),
  id: z.string().nullable(),
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
  /** Where the ticket came from: `api`, `email`, `widget`, `import`; game damage needs it. */
  channel: z.string(),
  createdAt: iso,
  updatedAt: iso,
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
  isInternal: z.boolean(),
  createdAt: iso,
});
export type MessageSnapshot = z.infer<typeof messageSnapshotSchema>;

/** The catalog: event type → {version, data schema}. Publishers and consumers both validate with it. */
export const EVENT_CATALOG = {
  'ticket.created': { version: 1, data: z.object({ ticket: ticketSnapshotSchema }) },
  'ticket.updated': {
    version: 1,
    data: z.object({
      ticket: ticketSnapshotSchema,
      /** Names of the fields that changed, and their values before the change. */
      changes: z.array(z.string()),
      previous: z.record(z.string(), z.unknown()),
    }),
  },
  'ticket.closed': { version: 1, data: z.object({ ticket: ticketSnapshotSchema, previousStatus: z.string() }) },
  'ticket.message_added': {
    version: 1,
    data: z.object({ ticket: ticketSnapshotSchema, message: messageSnapshotSchema }),
  },
  'ticket.deleted': {
    version: 1,
    data: z.object({ ticketId: z.string(), customerId: z.string().nullable(), ticket: ticketSnapshotSchema }),
  },
} as const;

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
