import type { EventEnvelope, Partition } from '@helpdesk/contracts';
import { newId, type Unscoped } from '@helpdesk/kit';
import { entryHash } from './chain';
import type { AuditEntryDoc } from './model';
import type { MemberNames } from './port';

const camel = (s: string) => s.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

/** `ticket.message_added` → `ticket`; `community.post.created` → `community.post`. */
export const resourceTypeOf = (type: string) => type.split('.').slice(0, -1).join('.');

/** The id of the resource an event is about: `data.<resource>.id`, else `data.<resource>Id`, else null. */
export function resourceIdOf(type: string, data: Record<string, unknown>): string | null {
  const name = camel(resourceTypeOf(type).split('.').at(-1)!);
  const snapshot = data[name] as { id?: unknown } | undefined;
  if (snapshot && typeof snapshot === 'object' && typeof snapshot.id === 'string') return snapshot.id;
  const id = data[`${name}Id`];
  return typeof id === 'string' ? id : null;
}

async function actorNameOf(members: MemberNames, event: EventEnvelope): Promise<string> {
  if (event.actor.type === 'system') return 'System';
  if (event.actor.type === 'member' && event.actor.id) {
    const name = await members.nameOf(event.teamId, event.actor.id);
    if (name !== null) return name;
  }
  return event.actor.type === 'key' ? `API key ${event.actor.id ?? ''}`.trim() : `Member ${event.actor.id ?? ''}`.trim();
}

/**
 * The actors' names of a batch's events, in order: one look-up per distinct actor of the batch
 * (members' names are also kept per process, bounded, when this is the sole instance: members.nameOf).
 */
export function actorNamesOf(members: MemberNames, events: EventEnvelope[]): Promise<string[]> {
  const byActor = new Map<string, Promise<string>>();
  return Promise.all(
    events.map((e) => {
      const key = `${e.teamId}:${e.actor.type}:${e.actor.id ?? ''}`;
      let name = byActor.get(key);
      if (!name) byActor.set(key, (name = actorNameOf(members, e)));
      return name;
    }),
  );
}

/**
 * The chain's next entries for `events` (one chain's, in order; `names` their actors' names) after
 * the entry `last`: each takes the next sequence and the hash of the entry before it, exactly as
 * appending them one by one would.
 */
export function chainedEntries(events: EventEnvelope[], names: string[], last: Pick<AuditEntryDoc, 'sequence' | 'hash'> | null) {
  let sequence = last?.sequence ?? 0;
  let previousHash = last?.hash ?? null;
  const docs = events.map((event, i) => {
    const entry: Omit<Unscoped<AuditEntryDoc>, 'hash'> & { teamId: string; mode: Partition } = {
      _id: newId('audit'),
      teamId: event.teamId,
      mode: event.mode,
      eventId: event.id,
      action: event.type,
      resourceType: resourceTypeOf(event.type),
      resourceId: resourceIdOf(event.type, event.data),
      actorType: event.actor.type,
      actorId: event.actor.id,
      ...(event.actor.sessionId ? { actorSessionId: event.actor.sessionId } : {}),
      actorName: names[i]!,
      details: event.data,
      createdAt: new Date(event.occurredAt),
      sequence: sequence + 1,
      previousHash,
    };
    const { teamId: _t, mode: _m, ...doc } = entry;
    const hash = entryHash(entry);
    sequence = entry.sequence;
    previousHash = hash;
    return { ...doc, hash };
  });
  return { docs, end: { sequence, hash: previousHash! } };
}
