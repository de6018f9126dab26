import type { ArticleHiddenReason, ArticleSnapshot, ArticleView } from '@helpdesk/contracts';
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

/** What an article's public visibility depends on besides itself: its partition's public categories and help-center switch. */
export interface VisibilityFacts {
  publicCategoryIds: ReadonlySet<string>;
  helpCenterOn: boolean;
}

/** An article's effective public visibility, and every reason it is not shown (docs/adr/0015, 0016). */
export function articleVisibility(a: Pick<ArticleDoc, 'status' | 'isPublic' | 'categoryId'>, facts: VisibilityFacts): Pick<ArticleView, 'publiclyVisible' | 'helpCenterVisible' | 'hiddenBecause'> {
  const hiddenBecause: ArticleHiddenReason[] = [];
  if (a.status !== 'published') hiddenBecause.push('draft');
  if (!a.isPublic) hiddenBecause.push('not_public');
  if (a.categoryId && !facts.publicCategoryIds.has(a.categoryId)) hiddenBecause.push('category_private');
  const publiclyVisible = hiddenBecause.length === 0;
  if (!facts.helpCenterOn) hiddenBecause.push('help_center_off');
  return { publiclyVisible, helpCenterVisible: hiddenBecause.length === 0, hiddenBecause };
}

/**
 * The spec's Article. `pendingViews` are views counted but not yet written (./view-counter.ts), so
 * every answer shows the exact count. A public reader (publishable key) gets no `metadata` nor
 * `customFields`. With `visibility`, its effective public visibility (exports leave it out).
 */
export function articleView(a: Unscoped<ArticleDoc>, opts: { pendingViews?: number; publicReader?: boolean; visibility?: VisibilityFacts } = {}): ArticleView {
  const { revisionCount: _revisions, publishedAt: _publishedAt, rev: _rev, metadata, customFields, ...view } = articleSnapshot(a);
  view.viewCount += opts.pendingViews ?? 0;
  const visibility = opts.visibility ? articleVisibility(a, opts.visibility) : {};
  return opts.publicReader ? { ...view, ...visibility } : { ...view, metadata, customFields: customFields ?? {}, ...visibility };
}
