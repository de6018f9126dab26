import type { z } from 'zod';
import type { Permission } from '../permissions';

/**
 * Who may read an event where it leaves the platform (the event stream, stream tokens, webhooks;
 * docs/adr/0066): whoever may read the event's resource through the API. Every catalog entry names it.
 *
 * - `op`: the public GET operation that reads the resource; the event needs that operation's
 *   permission in the manifest (so the two never drift apart);
 * - `permission`: where no GET operation states it; null: every secret key;
 * - `member`: the event is about one member's own record (their API key, their private saved view):
 *   the member it belongs to, or null. That member's keys read it; any other key needs the permission,
 *   and when there is none, nobody else reads it.
 */
export type EventRead = ({ op: string } | { permission: Permission | null }) & {
  /** Written against the entry's own data; called with what an event carries (a test event's `{}` too). */
  member?: (data: never) => string | null | undefined;
};

/** One catalog entry: its version, its payload schema, and who may read it. */
export interface CatalogEntry {
  version: number;
  data: z.ZodType;
  read: EventRead;
}
