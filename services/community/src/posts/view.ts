import type { CommunityPostSnapshot } from '@helpdesk/contracts';
import type { RequestContext, Unscoped } from '@helpdesk/kit';
import { attachmentEntries } from '../attachments/view';
import type { PostDoc } from './model';

/** The complete post in the spec's snake_case (the event snapshot, and what secret keys see). */
export function postSnapshot(p: Unscoped<PostDoc>): CommunityPostSnapshot {
  return {
    id: p._id,
    title: p.title,
    slug: p.slug,
    body: p.body,
    topic_id: p.topicId,
    status: p.status,
    visibility: p.visibility,
    vote_count: p.voteCount,
    comment_count: p.commentCount,
    is_pinned: p.isPinned,
    is_locked: p.isLocked,
    custom_fields: { ...p.customFields },
    attachments: attachmentEntries(p.attachments),
    author: { type: p.author.type, id: p.author.id },
    created_at: p.createdAt.toISOString(),
    updated_at: p.updatedAt.toISOString(),
  };
}

/** What the caller sees: `custom_fields` is internal, never shown to a publishable key. */
export function postView(p: Unscoped<PostDoc>, ctx: Pick<RequestContext, 'keyType'>): Omit<CommunityPostSnapshot, 'custom_fields'> & { custom_fields?: Record<string, unknown> } {
  const { custom_fields, ...rest } = postSnapshot(p);
  return ctx.keyType === 'publishable' ? rest : { ...rest, custom_fields };
}
