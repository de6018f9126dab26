import type { CommunityAttachment } from '@helpdesk/contracts';
import type { Unscoped } from '@helpdesk/kit';
import type { AttachmentDoc } from './model';

/** The spec's attachment object `{filename, content_type, size_bytes, storage_path}` and its id. */
export function attachmentView(a: Unscoped<AttachmentDoc>): CommunityAttachment {
  return { id: a._id, filename: a.filename, content_type: a.contentType, size_bytes: a.sizeBytes, storage_path: a.storagePath };
}

/** A stored entry as the JSON lists it (mongoose subdocuments carry no extra keys this way). */
export const attachmentEntries = (list: CommunityAttachment[]): CommunityAttachment[] =>
  list.map((a) => ({ id: a.id, filename: a.filename, content_type: a.content_type, size_bytes: a.size_bytes, storage_path: a.storage_path }));
