import mongoose from 'mongoose';
import { tenancyPlugin } from '@helpdesk/kit';
import type { CommunityAttachment, CommunityAuthor, CommunityPostStatus, Partition } from '@helpdesk/contracts';

/** A community post. Stored camelCase; the public JSON (view.ts) is the spec's snake_case. */
export interface PostDoc {
  _id: string;
  teamId: string;
  mode: Partition;
  title: string;
  slug: string;
  body: string;
  topicId: string;
  status: CommunityPostStatus;
  visibility: 'public' | 'members_only';
  /** Both counters move only with `$inc` in the transaction that adds or removes the vote or comment. */
  voteCount: number;
  commentCount: number;
  isPinned: boolean;
  isLocked: boolean;
  customFields: Record<string, unknown>;
  attachments: CommunityAttachment[];
  author: CommunityAuthor;
  createdAt: Date;
  updatedAt: Date;
}

export const attachmentEntrySchema = new mongoose.Schema<CommunityAttachment>(
  {
    id: { type: String, required: true },
    filename: { type: String, required: true },
    content_type: { type: String, required: true },
    size_bytes: { type: Number, required: true },
    storage_path: { type: String, required: true },
  },
  { _id: false },
);
export const authorSchema = new mongoose.Schema<CommunityAuthor>(
  { type: { type: String, required: true }, id: { type: String, required: true } },
  { _id: false },
);

const postSchema = new mongoose.Schema<PostDoc>(
  {
    _id: { type: String, required: true },
    title: { type: String, required: true },
    slug: { type: String, required: true },
    body: { type: String, default: '' },
    topicId: { type: String, required: true },
    status: { type: String, required: true },
    visibility: { type: String, required: true },
    voteCount: { type: Number, required: true },
    commentCount: { type: Number, required: true },
    isPinned: { type: Boolean, required: true },
    isLocked: { type: Boolean, required: true },
    customFields: { type: mongoose.Schema.Types.Mixed, default: {} },
    attachments: { type: [attachmentEntrySchema], default: [] },
    author: { type: authorSchema, required: true },
    createdAt: { type: Date, required: true },
    updatedAt: { type: Date, required: true },
  },
  { collection: 'posts', versionKey: false, strict: 'throw', minimize: false },
);
postSchema.plugin(tenancyPlugin);
postSchema.index({ teamId: 1, mode: 1, slug: 1 }, { unique: true });
postSchema.index({ teamId: 1, mode: 1, isPinned: -1, createdAt: -1 });
postSchema.index({ teamId: 1, mode: 1, topicId: 1 });

export type PostModel = mongoose.Model<PostDoc>;
export const postModel = (conn: mongoose.Connection): PostModel =>
  (conn.models.CommunityPost as PostModel | undefined) ?? conn.model<PostDoc>('CommunityPost', postSchema);
