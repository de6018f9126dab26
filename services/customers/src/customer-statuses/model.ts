import mongoose from 'mongoose';
import { tenancyPlugin } from '@helpdesk/kit';
import type { Partition } from '@helpdesk/contracts';

/** A status the team added. The four built-ins are not stored (see BUILT_IN_STATUSES). */
export interface StatusDoc {
  _id: mongoose.Types.ObjectId;
  teamId: string;
  mode: Partition;
  key: string;
  label: string;
  color: string;
  position: number;
  /**
   * Written whenever a customer is given this status, inside that transaction: a concurrent
   * DELETE of the status (which writes the same document) then conflicts and one of the two re-runs,
   * so a status is never deleted while a customer is being moved to it.
   */
  lastAssignedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

const statusSchema = new mongoose.Schema<StatusDoc>(
  {
    key: { type: String, required: true },
    label: { type: String, required: true },
    color: { type: String, required: true },
    position: { type: Number, required: true },
    lastAssignedAt: { type: Date, default: null },
    createdAt: { type: Date, required: true },
    updatedAt: { type: Date, required: true },
  },
  { collection: 'customer_statuses', versionKey: false, strict: 'throw' },
);
statusSchema.plugin(tenancyPlugin);
statusSchema.index({ teamId: 1, mode: 1, key: 1 }, { unique: true });

export type StatusModel = mongoose.Model<StatusDoc>;

export function statusModel(conn: mongoose.Connection): StatusModel {
  return (conn.models.CustomerStatus as StatusModel | undefined) ?? conn.model<StatusDoc>('CustomerStatus', statusSchema);
}
