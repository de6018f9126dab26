import mongoose from 'mongoose';
import { tenancyPlugin } from '@helpdesk/kit';
import type { Partition } from '@helpdesk/contracts';

/** A stored customer group. `_id` is the public UUID. */
export interface GroupDoc {
  _id: string;
  teamId: string;
  mode: Partition;
  name: string;
  slug: string;
  description: string | null;
  externalId: string | null;
  customFields: Record<string, unknown>;
  /** Derived: memberships, kept right in every transaction that adds or removes one. */
  customerCount: number;
  createdAt: Date;
  updatedAt: Date;
}

const groupSchema = new mongoose.Schema<GroupDoc>(
  {
    _id: { type: String, required: true },
    name: { type: String, required: true },
    slug: { type: String, required: true },
    description: { type: String, default: null },
    externalId: { type: String, default: null },
    customFields: { type: mongoose.Schema.Types.Mixed, default: () => ({}) },
    customerCount: { type: Number, required: true, default: 0 },
    createdAt: { type: Date, required: true },
    updatedAt: { type: Date, required: true },
  },
  { collection: 'customer_groups', versionKey: false, minimize: false, strict: 'throw' },
);
groupSchema.plugin(tenancyPlugin);
groupSchema.index({ teamId: 1, mode: 1, createdAt: -1, _id: -1 });
groupSchema.index({ teamId: 1, mode: 1, slug: 1 }, { unique: true });
groupSchema.index({ teamId: 1, mode: 1, externalId: 1 }, { unique: true, partialFilterExpression: { externalId: { $type: 'string' } } });

export type GroupModel = mongoose.Model<GroupDoc>;

export function groupModel(conn: mongoose.Connection): GroupModel {
  return (conn.models.CustomerGroup as GroupModel | undefined) ?? conn.model<GroupDoc>('CustomerGroup', groupSchema);
}
