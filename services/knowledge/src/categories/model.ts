import mongoose from 'mongoose';
import { tenancyPlugin } from '@helpdesk/kit';
import type { Partition } from '@helpdesk/contracts';

/** A stored category. `_id` is the public UUID. */
export interface CategoryDoc {
  _id: string;
  teamId: string;
  mode: Partition;
  name: string;
  /** Generated from the name; unique per team and partition. */
  slug: string;
  description: string | null;
  icon: string;
  color: string;
  sortOrder: number;
  isPublic: boolean;
  /**
   * Internal: bumped by every write that files an article here, so that write and a concurrent delete
   * of the category touch the same document and one of the two transactions retries (no article is
   * left in a deleted category).
   */
  articleLinks: number;
  createdAt: Date;
  updatedAt: Date;
}

const categorySchema = new mongoose.Schema<CategoryDoc>(
  {
    _id: { type: String, required: true },
    name: { type: String, required: true },
    slug: { type: String, required: true },
    description: { type: String, default: null },
    icon: { type: String, required: true },
    color: { type: String, required: true },
    sortOrder: { type: Number, required: true, default: 0 },
    isPublic: { type: Boolean, required: true },
    articleLinks: { type: Number, default: 0 },
    createdAt: { type: Date, required: true },
    updatedAt: { type: Date, required: true },
  },
  { collection: 'categories', versionKey: false, minimize: false, strict: 'throw' },
);
categorySchema.plugin(tenancyPlugin);
categorySchema.index({ teamId: 1, mode: 1, slug: 1 }, { unique: true });
categorySchema.index({ teamId: 1, mode: 1, sortOrder: 1, name: 1, _id: 1 });

export type CategoryModel = mongoose.Model<CategoryDoc>;

export function categoryModel(conn: mongoose.Connection): CategoryModel {
  return (conn.models.Category as CategoryModel | undefined) ?? conn.model<CategoryDoc>('Category', categorySchema);
}
