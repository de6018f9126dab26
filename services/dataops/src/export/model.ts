import mongoose from 'mongoose';
import type { BulkResource, Partition } from '@helpdesk/contracts';
import { tenancyPlugin } from '@helpdesk/kit';

/**
 * A deletion, for the incremental export (docs/adr/0036): which record of which resource was deleted
 * and when; nothing of the record itself. One per `*.deleted` event (its id is the key: a redelivered
 * event writes nothing twice). Kept 90 days.
 */
export interface TombstoneDoc {
  _id: string;
  teamId: string;
  mode: Partition;
  resource: BulkResource;
  recordId: string;
  deletedAt: Date;
  /** When dataops learnt of it: the incremental export's order (a late event is never behind a cursor). */
  recordedAt: Date;
}

export const TOMBSTONE_TTL_SECONDS = 90 * 24 * 3600;

const tombstoneSchema = new mongoose.Schema<TombstoneDoc>(
  {
    _id: { type: String, required: true },
    resource: { type: String, required: true },
    recordId: { type: String, required: true },
    deletedAt: { type: Date, required: true },
    recordedAt: { type: Date, required: true },
  },
  { collection: 'tombstones', versionKey: false, strict: 'throw' },
);
tombstoneSchema.plugin(tenancyPlugin);
tombstoneSchema.index({ teamId: 1, mode: 1, resource: 1, recordedAt: 1, _id: 1 });
tombstoneSchema.index({ recordedAt: 1 }, { expireAfterSeconds: TOMBSTONE_TTL_SECONDS });

export type TombstoneModel = mongoose.Model<TombstoneDoc>;
export const tombstoneModel = (conn: mongoose.Connection): TombstoneModel =>
  (conn.models.Tombstone as TombstoneModel | undefined) ?? conn.model<TombstoneDoc>('Tombstone', tombstoneSchema);
