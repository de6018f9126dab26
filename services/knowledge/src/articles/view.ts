import type { ArticleSnapshot, ArticleView } from '@helpdesk/contracts';
import type { Unscoped } from '@helpdesk/kit';
import type { ArticleDoc } from './model';

/** The event snapshot (and the internal operation's answer): the staff article plus revisionCount, publishedAt, rev. */
export function articleSnapshot(a: Unscoped<ArticleDoc>): ArticleSnapshot {
  return {
    id: a._id,
    title: a.title,
    content: a.content ?? '',
    categoryId: a.categoryId ?? null,
    status: a.status,
    isPublic: a.isPublic,
    tags: [...(a.tags ?? [])],
    metadata: { ...(a.metadata ?? {}) },
    customFields: { ...(a.customFields ?? {}) },
    viewCount: a.viewCount ?? 0,
    useCount: a.useCount ?? 0,
    revisionCount: a.revisionCount ?? 0,
    publishedAt: a.publishedAt ? new Date(a.publishedAt).toISOString() : null,
    createdAt: new Date(a.createdAt).toISOString(),
    updatedAt: new Date(a.updatedAt).toISOString(),
    rev: a.rev ?? 0,
  };
}

/**
 * The spec's Article. `pendingViews` are views counted but not yet written (./view-counter.ts), so
 * every answer shows the exact count. A public reader (publishable key) gets no `metadata` nor `customFields`.
 */
export function articleView(a: Unscoped<ArticleDoc>, opts: { pendingViews?: number; publicReader?: boolean } = {}): ArticleView {
  const { revisionCount: _revisions, publishedAt: _publishedAt, rev: _rev, metadata, customFields, ...view } = articleSnapshot(a);
  view.viewCount += opts.pendingViews ?? 0;
  return opts.publicReader ? view : { ...view, metadata, customFields: customFields ?? {} };
}
