import { topicMatches, type EventData, type EventEnvelope, type EventType } from '@helpdesk/contracts';
import type { ConsumeContext, EventBus, SubscribeOptions } from './bus';

/**
 * A service's subscriptions, one typed list (`consumers/index.ts`): `on('ticket.created', handler)`
 * gives the handler the payload typed from the event catalog, no casts. `onEvery('#', handler)`
 * takes every event matching a topic pattern (the webhooks service delivers them all).
 */
export interface Subscription {
  /** The topic pattern bound to the service's queue: an event type, or a pattern for `onEvery`. */
  pattern: string;
  handle(event: EventEnvelope, ctx: ConsumeContext): Promise<void>;
}

export type TypedEvent<T extends EventType> = EventEnvelope<EventData<T>>;

export function on<T extends EventType>(type: T, handler: (event: TypedEvent<T>, ctx: ConsumeContext) => Promise<void>): Subscription {
  // The bus has validated the payload against the catalog before any handler runs.
  return { pattern: type, handle: (e, c) => handler(e as TypedEvent<T>, c) };
}

export function onEvery(pattern: string, handler: (event: EventEnvelope, ctx: ConsumeContext) => Promise<void>): Subscription {
  return { pattern, handle: handler };
}

/**
 * Binds the service's queue (`helpdesk.<service>`) to every pattern of the list, and runs each event
 * through the subscriptions it matches (its exact type's first, then the patterns'). A handler that throws makes the bus retry the event.
 */
export async function subscribeAll(bus: EventBus, service: string, subscriptions: readonly Subscription[], opts: SubscribeOptions = {}): Promise<void> {
  if (!subscriptions.length) return;
  const exact = new Map<string, Subscription[]>();
  const patterns: Subscription[] = [];
  for (const s of subscriptions) {
    if (/[*#]/.test(s.pattern)) patterns.push(s);
    else exact.set(s.pattern, [...(exact.get(s.pattern) ?? []), s]);
  }
  // The pattern subscriptions an event type matches, worked out once per type (a few dozen types).
  const byType = new Map<string, Subscription[]>();
  const patternsFor = (type: string) => {
    let matched = byType.get(type);
    if (!matched) byType.set(type, (matched = patterns.filter((s) => topicMatches(s.pattern, type))));
    return matched;
  };
  await bus.subscribe(service, [...new Set(subscriptions.map((s) => s.pattern))], async (event, ctx) => {
    for (const s of exact.get(event.type) ?? []) await s.handle(event, ctx);
    for (const s of patternsFor(event.type)) await s.handle(event, ctx);
  }, opts);
}
