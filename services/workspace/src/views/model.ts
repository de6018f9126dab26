import mongoose from 'mongoose';
import { SORT_DIRECTIONS, VIEW_ENTITY_TYPES, type ViewEntityType, type Partition } from '@helpdesk/contracts';
import { tenancyPlugin } from '@helpdesk/kit';

/** A saved view (docs/adr/0035), under the team scope: test keys' views and live keys' views are apart. */
export interface SavedViewDoc {
  _id: string;
  teamId: string;
  mode: Partition;
  name: string;
  entityType: ViewEntityType;
  filters: Record<string, unknown>;
  sortField: string;
  sortDirection: (typeof SORT_DIRECTIONS)[number];
  visibility: 'private' | 'team';
  /** The member (`mem_…`) who made it, or the key id when the key has no member. */
  createdBy: string;
  createdAt: Date;
  updatedAt: Date;
}

const schema = new mongoose.Schema<SavedViewDoc>(
  {
    _id: { type: String, required: true },
    name: { type: String, required: true },
    entityType: { type: String, enum: VIEW_ENTITY_TYPES, required: true },
    filters: { type: mongoose.Schema.Types.Mixed, default: () => ({}) },
    sortField: { type: String, required: true },
    sortDirection: { type: String, enum: SORT_DIRECTIONS, required: true },
    visibility: { type: String, enum: ['private', 'team'], required: true },
    createdBy: { type: String, required: true },
    createdAt: { type: Date, required: true },
    updatedAt: { type: Date, required: true },
  },
  { collection: 'saved_views', versionKey: false, minimize: false, strict: 'throw' },
);
schema.plugin(tenancyPlugin);
schema.index({ teamId: 1, mode: 1, entityType: 1, createdAt: -1, _id: -1 });

export type SavedViewModel = mongoose.Model<SavedViewDoc>;

export function savedViewModel(conn: mongoose.Connection): SavedViewModel {
  return (conn.models.SavedView as SavedViewModel | undefined) ?? conn.model<SavedViewDoc>('SavedView', schema);
}
