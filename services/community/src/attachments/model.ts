import mongoose from 'mongoose';
import { tenancyPlugin } from '@helpdesk/kit';
import type { Partition } from '@helpdesk/contracts';

/** Who an attachment belongs to once referenced: a post or a comment (of `postId`). */
export interface AttachmentOwner {
  kind: 'post' | 'comment';
  id: string;
  postId: string;
}

/** An uploaded image: its bytes are in the attachment storage under `storagePath`. */
export interface AttachmentDoc {
  _id: string;
  teamId: string;
  mode: Partition;
  filename: string;
  contentType: 'image/jpeg' | 'image/png' | 'image/gif' | 'image/webp';
  sizeBytes: number;
  storagePath: string;
  /** null until a post or comment lists it; an attachment belongs to one of them at most. */
  owner: AttachmentOwner | null;
  createdAt: Date;
}

const ownerSchema = new mongoose.Schema<AttachmentOwner>(
  { kind: { type: String, required: true }, id: { type: String, required: true }, postId: { type: String, required: true } },
  { _id: false },
);

const attachmentSchema = new mongoose.Schema<AttachmentDoc>(
  {
    _id: { type: String, required: true },
    filename: { type: String, required: true },
    contentType: { type: String, required: true },
    sizeBytes: { type: Number, required: true },
    storagePath: { type: String, required: true },
    owner: { type: ownerSchema, default: null },
    createdAt: { type: Date, required: true },
  },
  { collection: 'attachments', versionKey: false, strict: 'throw' },
);
attachmentSchema.plugin(tenancyPlugin);
attachmentSchema.index({ teamId: 1, mode: 1, storagePath: 1 }, { unique: true });
attachmentSchema.index({ teamId: 1, mode: 1, 'owner.postId': 1 });
// Uploads no post or comment listed, oldest first (the sweep).
attachmentSchema.index({ teamId: 1, mode: 1, owner: 1, createdAt: 1 });

export type AttachmentModel = mongoose.Model<AttachmentDoc>;
export const attachmentModel = (conn: mongoose.Connection): AttachmentModel =>
  (conn.models.CommunityAttachment as AttachmentModel | undefined) ?? conn.model<AttachmentDoc>('CommunityAttachment', attachmentSchema);
