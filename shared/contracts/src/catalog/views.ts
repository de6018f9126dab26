import { z } from 'zod';
import type { CatalogEntry } from './read';

/** The saved views' events (type → {version, data schema}), spread into EVENT_CATALOG (docs/adr/0035). */
const iso = z.string().datetime();

export const VIEW_ENTITY_TYPES = ['tickets', 'customers', 'articles', 'community_posts'] as const;
export type ViewEntityType = (typeof VIEW_ENTITY_TYPES)[number];
export const SORT_DIRECTIONS = ['asc', 'desc'] as const;

export const savedViewSnapshotSchema = z.object({
  id: z.string(),
  object: z.literal('saved_view'),
  name: z.string(),
  entityType: z.enum(VIEW_ENTITY_TYPES),
  /** The entity list's own filters (validated against them when saved). */
  filters: z.record(z.string(), z.unknown()),
  sortField: z.string(),
  sortDirection: z.enum(SORT_DIRECTIONS),
  visibility: z.enum(['private', 'team']),
  /** Who made it: a member id (`mem_…`), or the key id when the key has no member. A private view is theirs alone. */
  createdBy: z.string(),
  createdAt: iso,
  updatedAt: iso,
});
export type SavedViewSnapshot = z.infer<typeof savedViewSnapshotSchema>;

/** A team view is every key's (`GET /views/{viewId}` needs no permission); a private one its creator's alone (docs/adr/0066). */
const viewRead = {
  op: 'getView',
  member: (d: { view: SavedViewSnapshot }) => (d.view.visibility === 'private' ? d.view.createdBy : null),
} as const;

export const VIEW_EVENTS = {
  'saved_view.created': { version: 1, read: viewRead, data: z.object({ view: savedViewSnapshotSchema }) },
  'saved_view.updated': { version: 1, read: viewRead, data: z.object({ view: savedViewSnapshotSchema, changes: z.array(z.string()), previous: z.record(z.string(), z.unknown()) }) },
  'saved_view.deleted': { version: 1, read: viewRead, data: z.object({ viewId: z.string(), view: savedViewSnapshotSchema }) },
} as const satisfies Record<string, CatalogEntry>;
