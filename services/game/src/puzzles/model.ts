import mongoose from 'mongoose';
import { tenancyPlugin } from '@helpdesk/kit';
import type { Partition } from '@helpdesk/contracts';

/** A member's answer to a day's puzzle: one per member and day. */
export interface PuzzleAnswerDoc {
  _id: mongoose.Types.ObjectId;
  teamId: string;
  mode: Partition;
  memberId: string;
  puzzleId: string;
  answer: string[];
  correct: boolean;
  answeredAt: Date;
}
const schema = new mongoose.Schema<PuzzleAnswerDoc>(
  {
    memberId: { type: String, required: true },
    puzzleId: { type: String, required: true },
    answer: { type: [String], required: true },
    correct: { type: Boolean, required: true },
    answeredAt: { type: Date, required: true },
  },
  { collection: 'puzzle_answers', versionKey: false, strict: 'throw' },
);
schema.plugin(tenancyPlugin);
schema.index({ teamId: 1, mode: 1, memberId: 1, puzzleId: 1 }, { unique: true });
export type PuzzleAnswerModel = mongoose.Model<PuzzleAnswerDoc>;
export const puzzleAnswerModel = (conn: mongoose.Connection): PuzzleAnswerModel =>
  (conn.models.PuzzleAnswer as PuzzleAnswerModel | undefined) ?? conn.model<PuzzleAnswerDoc>('PuzzleAnswer', schema);
