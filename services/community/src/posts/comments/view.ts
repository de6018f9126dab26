import type { CommunityCommentSnapshot } from '@helpdesk/contracts';
import type { Unscoped } from '@helpdesk/kit';
import { attachmentEntries } from '../../attachments/view';
import type { CommentDoc } from './model';

export function commentView(c: Unscoped<CommentDoc>): CommunityCommentSnapshot {
  return {
    id: c._id,
    post_id: c.postId,
    body: c.body,
    author: { type: c.author.type, id: c.author.id },
    attachments: attachmentEntries(c.attachments),
    is_official_answer: c.isOfficialAnswer,
    created_at: c.createdAt.toISOString(),
    updated_at: c.updatedAt.toISOString(),
  };
}
