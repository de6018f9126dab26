import type mongoose from 'mongoose';
import type { ArticleSnapshot, ArticleView, ListArticlesQuery, Page } from '@helpdesk/contracts';
import { escapeRegex, findPage, foundOr404, notFound, scoped, type RequestContext, type Scope, type ScopedFilter } from '@helpdesk/kit';
import type { ArticleDoc } from './model';
import type { ArticleCategories, ArticleStore, ArticleViews } from './port';
import { articleSnapshot, articleView, type VisibilityFacts } from './view';

type Models = Pick<ArticleStore, 'models'>;
type ReadDeps = Models & { categories: Pick<ArticleCategories, 'isPublic' | 'publicIds'>; views: ArticleViews };

/** Publishable keys (and the help center, which reads as one) see the public knowledge base only. */
export const isPublicReader = (ctx: Pick<RequestContext, 'keyType'>) => ctx.keyType === 'publishable';

/** The filter of the public knowledge base: published, public, and in no category or a public one. */
export const publicArticleFilter = (publicCategoryIds: string[]): ScopedFilter<ArticleDoc> => ({
  status: 'published',
  isPublic: true,
  $or: [{ categoryId: null }, { categoryId: { $in: publicCategoryIds } }],
});

export async function findArticleOr404({ models }: Models, scope: Scope, id: string, session?: mongoose.ClientSession): Promise<ArticleDoc> {
  return foundOr404(scoped(models, scope).articles.findOne({ _id: id }).session(session ?? null).lean<ArticleDoc>(), 'article', id);
}

/** Whether the public knowledge base shows the article. */
export async function isPubliclyVisible({ categories }: { categories: Pick<ArticleCategories, 'isPublic'> }, scope: Scope, a: ArticleDoc): Promise<boolean> {
  if (a.status !== 'published' || !a.isPublic) return false;
  return a.categoryId === null || (await categories.isPublic(scope, a.categoryId));
}

/** What the articles' public visibility depends on, read once per answer (two small reads). */
export async function visibilityFacts({ models, categories }: Models & { categories: Pick<ArticleCategories, 'publicIds'> }, scope: Scope): Promise<VisibilityFacts> {
  const [publicIds, helpCenter] = await Promise.all([
    categories.publicIds(scope),
    scoped(models, scope).helpCenters.findOne({}, { enabled: 1 }).lean<{ enabled: boolean }>(), // one per partition
  ]);
  return { publicCategoryIds: new Set(publicIds), helpCenterOn: helpCenter?.enabled ?? false };
}

/** The article as `ctx`'s reader sees it, its views not stored yet included. */
export const articleViewFor = ({ views }: { views: ArticleViews }, ctx: RequestContext, a: ArticleDoc, visibility: VisibilityFacts): ArticleView =>
  articleView(a, { pendingViews: views.unstored(ctx, a._id), publicReader: isPublicReader(ctx), visibility });

/** Newest first (or a saved view's `sort`, docs/adr/0035). A public reader's filters apply within the public knowledge base. */
export async function listArticles(deps: ReadDeps, ctx: RequestContext, q: ListArticlesQuery, sort?: Record<string, 1 | -1>): Promise<Page<ArticleView>> {
  const and: ScopedFilter<ArticleDoc>[] = [];
  if (q.category) and.push({ categoryId: q.category });
  if (q.status) and.push({ status: q.status });
  if (q.isPublic !== undefined) and.push({ isPublic: q.isPublic });
  const search = q.search?.trim();
  if (search) {
    const re = { $regex: escapeRegex(search), $options: 'i' };
    and.push({ $or: [{ title: re }, { content: re }] });
  }
  const facts = await visibilityFacts(deps, ctx);
  if (isPublicReader(ctx)) and.push(publicArticleFilter([...facts.publicCategoryIds]));
  const { rows, pagination } = await deps.views.settled(() => findPage(scoped(deps.models, ctx).articles, and.length ? { $and: and } : {}, q, { sort }));
  return { data: rows.map((a) => articleViewFor(deps, ctx, a, facts)), pagination };
}

/** A public reader's read counts one view; a draft, private or privately filed article is 404 for them. */
export async function getArticle(deps: ReadDeps, ctx: RequestContext, id: string): Promise<ArticleView> {
  const a = await deps.views.settled(() => findArticleOr404(deps, ctx, id));
  if (isPublicReader(ctx)) {
    if (!(await isPubliclyVisible(deps, ctx, a))) throw notFound('article', id);
    deps.views.count(ctx, a._id);
  }
  return articleViewFor(deps, ctx, a, await visibilityFacts(deps, ctx));
}

export async function articleSnapshotOf(deps: Models & { views: ArticleViews }, scope: Scope, id: string): Promise<ArticleSnapshot> {
  const a = await deps.views.settled(() => findArticleOr404(deps, scope, id));
  return { ...articleSnapshot(a), viewCount: a.viewCount + deps.views.unstored(scope, id) };
}
