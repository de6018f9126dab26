import { EVENT_CATALOG, type EventData, type EventEnvelope, type EventType, type MessageSnapshot, type TicketSnapshot, type Partition } from '@helpdesk/contracts';
import { newId } from '@helpdesk/kit';

/** An event as its publisher would put it on the bus (valid against the catalog). */
export function envelope<T extends EventType>(
  type: T,
  data: EventData<T>,
  scope: { teamId: string; mode?: Partition; id?: string; requestId?: string | null },
): EventEnvelope<EventData<T>> {
  return {
    id: scope.id ?? newId('event'),
    type,
    version: EVENT_CATALOG[type].version,
    teamId: scope.teamId,
    mode: scope.mode ?? 'test',
    occurredAt: new Date().toISOString(),
    requestId: scope.requestId === undefined ? `req_${Math.random().toString(36).slice(2, 12)}` : scope.requestId,
    actor: { type: 'key', id: 'key_testkey0001' },
    data,
  };
}

/** A ticket snapshot as ticketing publishes it. */
export function ticketFixture(customerId: string | null, fields: Partial<TicketSnapshot> = {}): TicketSnapshot {
  const now = new Date().toISOString();
  return {
    id: newId('ticket'), title: 'Printer on fire', status: 'new', priority: 'normal', customerId, assignedTo: null, tags: [], notes: null,
    messageCount: 0, metadata: {}, channel: 'api', createdAt: now, updatedAt: now, resolvedAt: null, closedAt: null, ...fields,
  };
}

/** A message snapshot (a customer's public message unless `fields` says otherwise). */
export function messageFixture(ticketId: string, content: string, fields: Partial<MessageSnapshot> = {}): MessageSnapshot {
  return { id: newId('message'), ticketId, content, sender: 'customer', senderName: null, isInternal: false, createdAt: new Date().toISOString(), ...fields };
}
