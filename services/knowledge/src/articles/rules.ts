import type mongoose from 'mongoose';
import type { CreateArticleInput, ListArticlesQuery, UpdateArticleInput } from '@helpdesk/contracts';
import type { Emit, RequestContext, Scope } from '@helpdesk/kit';
import { createArticle } from './create';
import type { ArticleDoc } from './model';
import type { ArticleCategories, ArticleFields, ArticleStore, ArticleViews } from './port';
import { articleSnapshotOf, findArticleOr404, getArticle, isPubliclyVisible, listArticles } from './read';
import { removeArticle, uncategorizeArticles } from './remove';
import { updateArticle } from './update';
import { addArticleUses } from './uses';

export { isPublicReader, publicArticleFilter } from './read';

export interface ArticleRulesDeps extends ArticleStore {
  categories: ArticleCategories;
  views: ArticleViews;
  customFields: ArticleFields;
}

/** The articles' use cases (docs/adr/0015-knowledge.md), bound once; their published revisions are ./revisions. */
export function articleRules(deps: ArticleRulesDeps) {
  return {
    findOr404: (scope: Scope, id: string, session?: mongoose.ClientSession) => findArticleOr404(deps, scope, id, session),
    isPubliclyVisible: (scope: Scope, a: ArticleDoc) => isPubliclyVisible(deps, scope, a),
    list: (ctx: RequestContext, q: ListArticlesQuery, sort?: Record<string, 1 | -1>) => listArticles(deps, ctx, q, sort),
    get: (ctx: RequestContext, id: string) => getArticle(deps, ctx, id),
    snapshot: (scope: Scope, id: string) => articleSnapshotOf(deps, scope, id),
    create: (ctx: RequestContext, input: CreateArticleInput) => createArticle(deps, ctx, input),
    update: (ctx: RequestContext, id: string, input: UpdateArticleInput) => updateArticle(deps, ctx, id, input),
    remove: (ctx: RequestContext, id: string) => removeArticle(deps, ctx, id),
    uncategorize: (ctx: RequestContext, categoryId: string, session: mongoose.ClientSession, emit: Emit) => uncategorizeArticles(deps, ctx, categoryId, session, emit),
    addUses: (scope: Scope, uses: Map<string, number>, session: mongoose.ClientSession) => addArticleUses(deps, scope, uses, session),
  };
}

export type ArticleRules = ReturnType<typeof articleRules>;
