import type { ArticleView, UpdateArticleInput } from '@helpdesk/contracts';
import { changeSet, eventScopeOf, mergeFreeForm, scoped, withOutbox, type RequestContext } from '@helpdesk/kit';
import { articleSearchTokens, type ArticleDoc } from './model';
import type { ArticleCategories, ArticleFields, ArticleStore, ArticleViews } from './port';
import { checkCategory, keepRevision } from './publish';
import { articleViewFor, findArticleOr404, visibilityFacts } from './read';
import { articleSnapshot } from './view';

/**
 * Only given fields change. A move to published, or a title or content change while published,
 * keeps a revision and emits article.published after article.updated.
 */
export async function updateArticle(
  deps: ArticleStore & { categories: Pick<ArticleCategories, 'link' | 'publicIds'>; customFields: ArticleFields; views: ArticleViews },
  ctx: RequestContext,
  id: string,
  input: UpdateArticleInput,
): Promise<ArticleView> {
  const db = scoped(deps.models, ctx);
  const next = await withOutbox(deps.conn, eventScopeOf(ctx), async (session, emit) => {
    const cur = await findArticleOr404(deps, ctx, id, session);
    const { set, previous, change, changes: changedFields, applyDefined } = changeSet<ArticleDoc>(cur);
    applyDefined(input, ['title', 'content']);
    if (input.categoryId !== undefined && change('categoryId', input.categoryId)) await checkCategory(deps, ctx, input.categoryId, session);
    applyDefined(input, ['status', 'isPublic', 'tags']);
    if (input.metadata !== undefined) change('metadata', mergeFreeForm(cur.metadata ?? {}, input.metadata, 'metadata'));
    if (input.customFields !== undefined) change('customFields', await deps.customFields.resolve(ctx, input.customFields, cur.customFields ?? {}));
    const changes = changedFields();
    if (!changes.length) return cur;
    if (changes.includes('title') || changes.includes('content')) Object.assign(set, articleSearchTokens({ title: set.title ?? cur.title, content: set.content ?? cur.content }));
    const now = new Date();
    const published = (set.status ?? cur.status) === 'published';
    const publishes = published && (changes.includes('status') || changes.includes('title') || changes.includes('content'));
    set.updatedAt = now;
    if (publishes) set.publishedAt = now;
    const inc = { rev: 1, ...(publishes ? { revisionCount: 1 } : {}) };
    const written = (await db.articles.findOneAndUpdate({ _id: id }, { $set: set, $inc: inc }, { session, returnDocument: 'after' }).lean<ArticleDoc>())!;
    emit({ type: 'article.updated', data: { article: articleSnapshot(written), changes, previous } });
    if (publishes) emit({ type: 'article.published', data: { article: articleSnapshot(written), revision: await keepRevision(deps, ctx, written, session) } });
    return written;
  });
  return articleViewFor(deps, ctx, next, await visibilityFacts(deps, ctx));
}
