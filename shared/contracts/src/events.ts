import { z } from 'zod';
import { partitionSchema } from './partition';
import { COMMUNITY_EVENTS } from './catalog/community';
import { CUSTOMER_EVENTS } from './catalog/customers';
import { GAME_EVENTS } from './catalog/game';
import { KNOWLEDGE_EVENTS } from './catalog/knowledge';
import { NOTIFICATIONS_EVENTS } from './catalog/notifications';
import type { CatalogEntry } from './catalog/read';
import { AUTOMATION_EVENTS, TICKET_EVENTS, TICKETING_EVENTS } from './catalog/ticketing';
import { WEBHOOK_EVENTS } from './catalog/webhooks';
import { SESSION_EVENTS, VIEW_EVENTS, WORKSPACE_EVENTS } from './catalog/workspace';

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
  mode: partitionSchema,
  occurredAt: z.string().datetime(),
  requestId: z.string().nullable(),
  actor: actorSchema,
  data: z.record(z.string(), z.unknown()),
});
export type EventEnvelope<D = Record<string, unknown>> = Omit<z.infer<typeof eventEnvelopeSchema>, 'data'> & { data: D };

/**
 * The catalog: event type → {version, data schema}, one file per service in catalog/. Publishers and
 * consumers both validate with it. The order below is the published order (the OpenAPI document's
 * events table).
 */
export const EVENT_CATALOG = {
  ...TICKET_EVENTS,
  ...CUSTOMER_EVENTS,
  ...WEBHOOK_EVENTS,
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