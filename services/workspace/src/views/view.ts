import type { SavedViewSnapshot } from '@helpdesk/contracts';
import type { SavedViewDoc } from './model';

export const savedViewView = (v: SavedViewDoc): SavedViewSnapshot => ({
  id: v._id,
  object: 'saved_view',
  name: v.name,
  entityType: v.entityType,
  filters: v.filters ?? {},
  sortField: v.sortField,
  sortDirection: v.sortDirection,
  visibility: v.visibility,
  createdBy: v.createdBy,
  createdAt: v.createdAt.toISOString(),
  updatedAt: v.updatedAt.toISOString(),
});
