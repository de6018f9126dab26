import mongoose from 'mongoose';
import { tenancyPlugin } from '@helpdesk/kit';
import type { Partition } from '@helpdesk/contracts';

/** A partition's help-center switch; no document = off. `_id` is `<teamId>:<mode>`. */
export interface HelpCenterDoc {
  _id: string;
  teamId: string;
  mode: Partition;
  enabled: boolean;
  title: string | null;
  updatedAt: Date;
}

const helpCenterSchema = new mongoose.Schema<HelpCenterDoc>(
  {
    _id: { type: String, required: true },
    enabled: { type: Boolean, required: true },
    title: { type: String, default: null },
    updatedAt: { type: Date, required: true },
  },
  { collection: 'help_centers', versionKey: false, minimize: false, strict: 'throw' },
);
helpCenterSchema.plugin(tenancyPlugin);

export type HelpCenterModel = mongoose.Model<HelpCenterDoc>;

export function helpCenterModel(conn: mongoose.Connection): HelpCenterModel {
  return (conn.models.HelpCenter as HelpCenterModel | undefined) ?? conn.model<HelpCenterDoc>('HelpCenter', helpCenterSchema);
}
