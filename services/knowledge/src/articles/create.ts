import type { ArticleView, CreateArticleInput } from '@helpdesk/contracts';
import { eventScopeOf, newId, scoped, withOutbox, withoutNulls, type RequestContext, type Unscoped } from '@helpdesk/kit';
import { articleSearchTokens, type ArticleDoc } from './model';
import type { ArticleCategories, ArticleFields, ArticleStore } from './port';
import { checkCategory, keepRevision } from './publish';
import { visibilityFacts } from './read';
import { articleSnapshot, articleView } from './view';

/** A new article; created published, it keeps its first revision and emits article.published after article.created. */
export async function createArticle(
  deps: ArticleStore & { categories: Pick<ArticleCategories, 'link' | 'publicIds'>; customFields: ArticleFields },
  ctx: RequestContext,
  input: CreateArticleInput,
): Promise<ArticleView> {
  const now = new Date();
  const status = input.status ?? 'draft';
  const doc: Unscoped<ArticleDoc> = {
    _id: newId('article'),
    title: input.title,
    content: input.content ?? '',
    categoryId: input.categoryId ?? null,
    status,
    isPublic: input.isPublic ?? false,
    tags: input.tags ?? [],
    metadata: withoutNulls(input.metadata ?? {}),
    customFields: await deps.customFields.resolve(ctx, input.customFields, null),
    viewCount: 0,
    useCount: 0,
    revisionCount: status === 'published' ? 1 : 0,
    publishedAt: status === 'published' ? now : null,
    rev: 1,
    createdAt: now,
    updatedAt: now,
  };
  Object.assign(doc, articleSearchTokens(doc));
  await withOutbox(deps.conn, eventScopeOf(ctx), async (session, emit) => {
    await checkCategory(deps, ctx, doc.categoryId, session);
    await scoped(deps.models, ctx).articles.create([doc], { session });
    emit({ type: 'article.created', data: { article: articleSnapshot(doc) } });
    if (status === 'published') emit({ type: 'article.published', data: { article: articleSnapshot(doc), revision: await keepRevision(deps, ctx, doc, session) } });
  });
  return articleView(doc, { visibility: await visibilityFacts(deps, ctx) });
}
