import type { LeanBulkOp, LeanFilter } from '@helpdesk/kit';
import type { mongo } from 'mongoose';

/**
 * A payment's writes go straight through the driver (docs/adr/0043, 0044, 0047), through a scoped
 * handle's fast paths (kit's data layer: `leanFindOneAndUpdate`, `leanInsert`, `leanBulkWrite`),
 * which add the scope: only for documents and filters the game builds in full, with values stored
 * as sent (string ids, numbers, dates), nothing cast, no schema default added. Every call takes the
 * transaction's session.
 */

/** One update of an ordered bulk (in order, one command). */
export interface LeanUpdate {
  filter: LeanFilter;
  update: mongo.Document;
  upsert?: boolean;
}

/** `updateOne` operations, for a handle's `leanBulkWrite`. */
export const updates = (ops: readonly LeanUpdate[]): LeanBulkOp[] => ops.map((o) => ({ updateOne: { filter: o.filter, update: o.update, upsert: o.upsert ?? false } }));
