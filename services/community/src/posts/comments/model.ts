import mongoose from 'mongoose';
import { tenancyPlugin } from '@helpdesk/kit';
import type { CommunityAttachment, CommunityAuthor, Partition } from '@helpdesk/contracts';
import { attachmentEntrySchema, authorSchema } from '../model';

export interface CommentDoc {
  _id: string;
  teamId: string;
  mode: Partition;
  postId: string;
  body: string;
  author: CommunityAuthor;
  attachments: CommunityAttachment[];
  isOfficialAnswer: boolean;
  createdAt: Date;
  updatedAt: Date;
}

const commentSchema = new mongoose.Schema<CommentDoc>(
  {
    _id: { type: String, required: true },
    postId: { type: String, required: true },
    body: { type: String, required: true },
    author: { type: authorSchema, required: true },
    attachments: { type: [attachmentEntrySchema], default: [] },
    isOfficialAnswer: { type: Boolean, required: true },
    createdAt: { type: Date, required: true },
    updatedAt: { type: Date, required: true },
  },
  { collection: 'comments', versionKey: false, strict: 'throw' },
);
commentSchema.plugin(tenancyPlugin);
commentSchema.index({ teamId: 1, mode: 1, postId: 1, createdAt: 1 });

export type CommentModel = mongoose.Model<CommentDoc>;
export const commentModel = (conn: mongoose.Connection): CommentModel =>
  (conn.models.CommunityComment as CommentModel | undefined) ?? conn.model<CommentDoc>('CommunityComment', commentSchema);
