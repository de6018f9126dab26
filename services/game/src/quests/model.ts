import mongoose from 'mongoose';
import { tenancyPlugin } from '@helpdesk/kit';
import type { Partition } from '@helpdesk/contracts';

/** A quest claimed in its period (day or week): once per member, quest and period. */
export interface QuestClaimDoc {
  _id: mongoose.Types.ObjectId;
  teamId: string;
  mode: Partition;
  memberId: string;
  quest: string;
  periodId: string;
  claimedAt: Date;
}
const schema = new mongoose.Schema<QuestClaimDoc>(
  { memberId: { type: String, required: true }, quest: { type: String, required: true }, periodId: { type: String, required: true }, claimedAt: { type: Date, required: true } },
  { collection: 'quest_claims', versionKey: false, strict: 'throw' },
);
schema.plugin(tenancyPlugin);
schema.index({ teamId: 1, mode: 1, memberId: 1, quest: 1, periodId: 1 }, { unique: true });
export type QuestClaimModel = mongoose.Model<QuestClaimDoc>;
export const questClaimModel = (conn: mongoose.Connection): QuestClaimModel =>
  (conn.models.QuestClaim as QuestClaimModel | undefined) ?? conn.model<QuestClaimDoc>('QuestClaim', schema);
