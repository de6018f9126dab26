import mongoose from 'mongoose';
import { tenancyPlugin } from '@helpdesk/kit';
import type { Partition } from '@helpdesk/contracts';

export interface KudosDoc {
  /** `kudos_…` */
  _id: string;
  teamId: string;
  mode: Partition;
  fromMemberId: string;
  toMemberId: string;
  message: string | null;
  dayId: string;
  weekId: string;
  createdAt: Date;
}
const schema = new mongoose.Schema<KudosDoc>(
  {
    _id: { type: String, required: true },
    fromMemberId: { type: String, required: true },
    toMemberId: { type: String, required: true },
    message: { type: String, default: null },
    dayId: { type: String, required: true },
    weekId: { type: String, required: true },
    createdAt: { type: Date, required: true },
  },
  { collection: 'kudos', versionKey: false, strict: 'throw' },
);
schema.plugin(tenancyPlugin);
schema.index({ teamId: 1, mode: 1, fromMemberId: 1, dayId: 1 });
schema.index({ teamId: 1, mode: 1, createdAt: -1 });
export type KudosModel = mongoose.Model<KudosDoc>;
export const kudosModel = (conn: mongoose.Connection): KudosModel => (conn.models.Kudos as KudosModel | undefined) ?? conn.model<KudosDoc>('Kudos', schema);
