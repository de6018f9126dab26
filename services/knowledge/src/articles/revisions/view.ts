import type { ArticleRevisionView } from '@helpdesk/contracts';
import type { Unscoped } from '@helpdesk/kit';
import type { RevisionDoc } from './model';

export function revisionView(r: Unscoped<RevisionDoc>): ArticleRevisionView {
  return {
    object: 'article_revision',
    articleId: r.articleId,
    revision: r.revision,
    title: r.title,
    content: r.content ?? '',
    categoryId: r.categoryId ?? null,
    isPublic: r.isPublic,
    tags: [...(r.tags ?? [])],
    publishedAt: new Date(r.publishedAt).toISOString(),
    publishedBy: { type: r.publishedBy.type, id: r.publishedBy.id ?? null },
  };
}
