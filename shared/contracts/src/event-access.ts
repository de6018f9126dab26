import type { EventRead } from './catalog/read';
import { EVENT_CATALOG, EVENT_TYPES, isKnownEventType, type EventType } from './events';
import { PUBLIC_OPERATIONS, type OperationDef } from './manifest';
import type { Permission } from './permissions';
import { matchesPattern } from './webhook-patterns';

/**
 * Least privilege where events leave the platform (docs/adr/0066): the event stream, its stream
 * tokens and webhooks hand an event only to a reader that may read the event's resource through the
 * API. Each catalog entry says how (`read`, catalog/read.ts); this resolves it against the manifest.
 */

/** Who reads one event: keys that hold `permission` (null: every key), and the keys of `member` (alone when `permission` is null). */
export interface EventAccess {
  permission: Permission | null;
  member: string | null;
}

/**
 * Whoever an event would reach: a key (the stream, a stream token's issuing key), or a webhook
 * reading as the key that set it up. `permissions` are effective ones (the key's scopes within its
 * member's role).
 */
export interface EventReader {
  permissions: readonly Permission[];
  memberId: string | null;
  keyId: string | null;
}

const operations: Record<string, OperationDef> = PUBLIC_OPERATIONS;
const readOf = (type: EventType): EventRead => EVENT_CATALOG[type].read;

/** The GET operation an entry names, or an error that names the event: a wrong name fails at load, in every test. */
function readOperation(type: string, read: EventRead): OperationDef | null {
  if (!('op' in read)) return null;
  const op = operations[read.op];
  if (!op || op.method !== 'GET') throw new Error(`event ${type}: read.op '${read.op}' is not a public GET operation of the manifest`);
  return op;
}

const PERMISSIONS_OF = new Map<string, Permission | null>(
  EVENT_TYPES.map((type) => {
    const read = readOf(type);
    return [type, 'op' in read ? readOperation(type, read)!.permission : read.permission];
  }),
);

/** The permission an event type needs (null: every secret key), from the manifest where a GET operation reads its resource. */
export function eventPermission(type: EventType): Permission | null {
  return PERMISSIONS_OF.get(type)!;
}

/** The public GET operation whose permission an event type takes, or null where the catalog names the permission itself. */
export function eventReadOperation(type: EventType): { id: string; method: string; path: string } | null {
  const read = readOf(type);
  return 'op' in read ? { id: read.op, method: 'GET', path: operations[read.op]!.path } : null;
}

/** Whether some events of the type belong to one member (an API key, a private saved view). */
export const hasMemberRule = (type: EventType): boolean => readOf(type).member !== undefined;

/** Who may read this event (null for a type the catalog does not have: nobody). */
export function eventAccess(type: string, data: unknown): EventAccess | null {
  if (!isKnownEventType(type)) return null;
  const member = readOf(type).member as ((d: unknown) => string | null | undefined) | undefined;
  let owner: string | null = null;
  if (member) {
    try {
      owner = member(data) ?? null;
    } catch {
      // A test event carries `{}`: it belongs to nobody, so only the permission reads it.
      owner = null;
    }
  }
  return { permission: eventPermission(type), member: typeof owner === 'string' ? owner : null };
}

/** Whether `reader` may receive an event with this access. */
export function mayRead(access: EventAccess | null, reader: EventReader): boolean {
  if (!access) return false;
  if (access.member !== null && (access.member === reader.memberId || access.member === reader.keyId)) return true;
  if (access.permission === null) return access.member === null;
  return reader.permissions.includes(access.permission);
}

/** Whether any event of the type could reach `reader` (its permission, or records of its own). */
export function mayEverRead(type: EventType, reader: EventReader): boolean {
  const permission = eventPermission(type);
  return permission === null || reader.permissions.includes(permission) || hasMemberRule(type);
}

/**
 * Why a filter (the stream's `types`, a stream token's, a webhook's `events`) asks for events the
 * reader can never receive, or null. Patterns only narrow what a reader gets, never widen it; one
 * that matches nothing the reader may read is refused (403) rather than left to stay silent.
 */
export function unreadablePattern(patterns: readonly string[], reader: EventReader): string | null {
  for (const pattern of patterns) {
    const types = EVENT_TYPES.filter((t) => matchesPattern(pattern, t));
    if (types.some((t) => mayEverRead(t, reader))) continue;
    if (types.length === 1) {
      const type = types[0]!;
      const op = eventReadOperation(type);
      const where = op ? ` (the permission of ${op.method} ${op.path})` : '';
      return `This API key cannot receive ${type} events: they need the permission ${eventPermission(type)}${where}.`;
    }
    const needed = [...new Set(types.map((t) => eventPermission(t)))].join(', ');
    return `This API key cannot receive any ${pattern} event: they need one of the permissions ${needed}.`;
  }
  return null;
}
