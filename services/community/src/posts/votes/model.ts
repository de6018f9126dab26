import mongoose from 'mongoose';
import { tenancyPlugin } from '@helpdesk/kit';
import type { CommunityAuthor, Partition } from '@helpdesk/contracts';
import { authorSchema } from '../model';

/** One voter's vote on one post: the unique index makes a second one a duplicate-key error. */
export interface VoteDoc {
  _id: string;
  teamId: string;
  mode: Partition;
  postId: string;
  /** `<type>:<id>` of the voter (a member, key or customer). */
  voterKey: string;
  voter: CommunityAuthor;
  createdAt: Date;
}

const voteSchema = new mongoose.Schema<VoteDoc>(
  {
    _id: { type: String, required: true },
    postId: { type: String, required: true },
    voterKey: { type: String, required: true },
    voter: { type: authorSchema, required: true },
    createdAt: { type: Date, required: true },
  },
  { collection: 'votes', versionKey: false, strict: 'throw' },
);
voteSchema.plugin(tenancyPlugin);
voteSchema.index({ teamId: 1, mode: 1, postId: 1, voterKey: 1 }, { unique: true });

export type VoteModel = mongoose.Model<VoteDoc>;
export const voteModel = (conn: mongoose.Connection): VoteModel =>
  (conn.models.CommunityVote as VoteModel | undefined) ?? conn.model<VoteDoc>('CommunityVote', voteSchema);
