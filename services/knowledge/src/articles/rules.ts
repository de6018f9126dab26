import type mongoose from 'mongoose';
import type { ArticleSnapshot, ArticleView, CreateArticleInput, ListArticlesQuery, Page, UpdateArticleInput } from '@helpdesk/contracts';
import {
  actorOf,
  changeSet,
  escapeRegex,
  eventScopeOf,
  findPage,
  foundOr404,
  mergeFreeForm,
  newId,
  notFound,
  parameterInvalid,
  scoped,
  withOutbox,
  withoutNulls,
  type Emit,
  type RequestContext,
  type Scope,
  type ScopedFilter,
  type Unscoped,
} from '@helpdesk/kit';
import type { CategoryRules } from '../categories/rules';
import type { CustomFieldRules } from '@helpdesk/kit';
import type { KnowledgeModels } from '../models';
import { articleSearchTokens, type ArticleDoc } from './model';
import type { ViewCounter } from './view-counter';
import { articleSnapshot, articleView, type VisibilityFacts } from './view';

export interface ArticleRulesDeps {
  conn: mongoose.Connection;
  models: KnowledgeModels;
  categories: CategoryRules;
  views: ViewCounter;
  customFields: CustomFieldRules;
}

/** Publishable keys (and the help center, which reads as one) see the public knowledge base only. */
export const isPublicReader = (ctx: Pick<RequestContext, 'keyType'>) => ctx.keyType === 'publishable';

/** The filter of the public knowledge base: published, public, and in no category or a public one. */
export const publicArticleFilter = (publicCategoryIds: string[]): ScopedFilter<ArticleDoc> => ({
  status: 'published',
  isPublic: true,
  $or: [{ categoryId: null }, { categoryId: { $in: publicCategoryIds } }],
});

/** The rules of articles (docs/adr/0015-knowledge.md); their published revisions are ./revisions. */
export function articleRules({ conn, models, categories, views, customFields }: ArticleRulesDeps) {
  async function findOr404(scope: Scope, id: string, session?: mongoose.ClientSession): Promise<ArticleDoc> {
    return foundOr404(scoped(models, scope).articles.findOne({ _id: id }).session(session ?? null).lean<ArticleDoc>(), 'article', id);
  }

  /** Whether the public knowledge base shows the article. */
  async function isPubliclyVisible(scope: Scope, a: ArticleDoc): Promise<boolean> {
    if (a.status !== 'published' || !a.isPublic) return false;
    return a.categoryId === null || (await categories.isPublic(scope, a.categoryId));
  }

  /** A category id given on a write must be a category of the team and partition (linked in the same transaction). */
  async function checkCategory(scope: Scope, categoryId: string | null | undefined, session: mongoose.ClientSession): Promise<void> {
    if (categoryId && !(await categories.link(scope, categoryId, session))) {
      throw parameterInvalid('categoryId', `Invalid categoryId: no category '${categoryId}' in this team and partition.`);
    }
  }

  /** Keeps the article's current title and content as its next published revision; returns its number. */
  async function keepRevision(ctx: RequestContext, a: Unscoped<ArticleDoc>, session: mongoose.ClientSession): Promise<number> {
    const revision = a.revisionCount;
    await scoped(models, ctx).revisions.create(
      [
        {
          _id: `${a._id}:${revision}`,
          articleId: a._id,
          revision,
          title: a.title,
          content: a.content,
          categoryId: a.categoryId,
          isPublic: a.isPublic,
          tags: a.tags,
          publishedAt: a.publishedAt ?? a.updatedAt,
          publishedBy: actorOf(ctx),
        },
      ],
      { session },
    );
    return revision;
  }

  /** What the articles' public visibility depends on, read once per answer (two small reads). */
  async function visibilityFacts(scope: Scope): Promise<VisibilityFacts> {
    const [publicIds, helpCenter] = await Promise.all([
      categories.publicIds(scope),
      scoped(models, scope).helpCenters.findOne({}, { enabled: 1 }).lean<{ enabled: boolean }>(), // one per partition
    ]);
    return { publicCategoryIds: new Set(publicIds), helpCenterOn: helpCenter?.enabled ?? false };
  }

  const viewOf = (ctx: RequestContext, a: ArticleDoc, visibility: VisibilityFacts): ArticleView =>
    articleView(a, { pendingViews: views.unstored(ctx, a._id), publicReader: isPublicReader(ctx), visibility });

  return {
    findOr404,
    isPubliclyVisible,

    /** Newest first (or a saved view's `sort`, docs/adr/0035). A public reader's filters apply within the public knowledge base. */
    async list(ctx: RequestContext, q: ListArticlesQuery, sort?: Record<string, 1 | -1>): Promise<Page<ArticleView>> {
      const db = scoped(models, ctx);
      const and: ScopedFilter<ArticleDoc>[] = [];
      if (q.category) and.push({ categoryId: q.category });
      if (q.status) and.push({ status: q.status });
      if (q.isPublic !== undefined) and.push({ isPublic: q.isPublic });
      const search = q.search?.trim();
      if (search) {
        const re = { $regex: escapeRegex(search), $options: 'i' };
        and.push({ $or: [{ title: re }, { content: re }] });
      }
      const facts = await visibilityFacts(ctx);
      if (isPublicReader(ctx)) and.push(publicArticleFilter([...facts.publicCategoryIds]));
      const { rows, pagination } = await views.settled(() => findPage(db.articles, and.length ? { $and: and } : {}, q, { sort }));
      return { data: rows.map((a) => viewOf(ctx, a, facts)), pagination };
    },

    /** A public reader's read counts one view; a draft, private or privately filed article is 404 for them. */
    async get(ctx: RequestContext, id: string): Promise<ArticleView> {
      const a = await views.settled(() => findOr404(ctx, id));
      if (isPublicReader(ctx)) {
        if (!(await isPubliclyVisible(ctx, a))) throw notFound('article', id);
        views.count(ctx, a._id);
      }
      return viewOf(ctx, a, await visibilityFacts(ctx));
    },

    async snapshot(scope: Scope, id: string): Promise<ArticleSnapshot> {
      const a = await views.settled(() => findOr404(scope, id));
      return { ...articleSnapshot(a), viewCount: a.viewCount + views.unstored(scope, id) };
    },

    async create(ctx: RequestContext, input: CreateArticleInput): Promise<ArticleView> {
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
        customFields: await customFields.resolve(ctx, input.customFields, null),
        viewCount: 0,
        useCount: 0,
        revisionCount: status === 'published' ? 1 : 0,
        publishedAt: status === 'published' ? now : null,
        rev: 1,
        createdAt: now,
        updatedAt: now,
      };
      Object.assign(doc, articleSearchTokens(doc));
      await withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
        await checkCategory(ctx, doc.categoryId, session);
        await scoped(models, ctx).articles.create([doc], { session });
        emit({ type: 'article.created', data: { article: articleSnapshot(doc) } });
        if (status === 'published') emit({ type: 'article.published', data: { article: articleSnapshot(doc), revision: await keepRevision(ctx, doc, session) } });
      });
      return articleView(doc, { visibility: await visibilityFacts(ctx) });
    },

    /**
     * Only given fields change. A move to published, or a title or content change while published,
     * keeps a revision and emits article.published after article.updated.
     */
    async update(ctx: RequestContext, id: string, input: UpdateArticleInput): Promise<ArticleView> {
      const db = scoped(models, ctx);
      const next = await withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
        const cur = await findOr404(ctx, id, session);
        const { set, previous, change, changes: changedFields } = changeSet<ArticleDoc>(cur);
        if (input.title !== undefined) change('title', input.title);
        if (input.content !== undefined) change('content', input.content);
        if (input.categoryId !== undefined && change('categoryId', input.categoryId)) await checkCategory(ctx, input.categoryId, session);
        if (input.status !== undefined) change('status', input.status);
        if (input.isPublic !== undefined) change('isPublic', input.isPublic);
        if (input.tags !== undefined) change('tags', input.tags);
        if (input.metadata !== undefined) change('metadata', mergeFreeForm(cur.metadata ?? {}, input.metadata, 'metadata'));
        if (input.customFields !== undefined) change('customFields', await customFields.resolve(ctx, input.customFields, cur.customFields ?? {}));
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
        if (publishes) emit({ type: 'article.published', data: { article: articleSnapshot(written), revision: await keepRevision(ctx, written, session) } });
        return written;
      });
      return viewOf(ctx, next, await visibilityFacts(ctx));
    },

    /** Its revisions go with it. */
    async remove(ctx: RequestContext, id: string): Promise<{ id: string; deleted: true }> {
      const db = scoped(models, ctx);
      await withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
        const cur = await foundOr404(db.articles.findOneAndDelete({ _id: id }, { session }).lean<ArticleDoc>(), 'article', id);
        await db.revisions.deleteMany({ articleId: id }, { session });
        emit({ type: 'article.deleted', data: { articleId: id, article: articleSnapshot(cur) } });
      });
      return { id, deleted: true };
    },

    /**
     * A deleted category's articles become uncategorized in the delete's own transaction, each
     * emitting article.updated. Returns how many.
     */
    async uncategorize(ctx: RequestContext, categoryId: string, session: mongoose.ClientSession, emit: Emit): Promise<number> {
      const db = scoped(models, ctx);
      const filed = await db.articles.find({ categoryId }).session(session).lean<ArticleDoc[]>();
      if (!filed.length) return 0;
      const now = new Date();
      await db.articles.updateMany({ categoryId }, { $set: { categoryId: null, updatedAt: now }, $inc: { rev: 1 } }, { session });
      for (const a of filed) {
        const after = { ...a, categoryId: null, updatedAt: now, rev: (a.rev ?? 0) + 1 };
        emit({ type: 'article.updated', data: { article: articleSnapshot(after), changes: ['categoryId'], previous: { categoryId } } });
      }
      return filed.length;
    },

    /** Adds each article's uses (ticket replies citing it); ids of other teams, partitions or deleted articles match nothing. */
    async addUses(scope: Scope, uses: Map<string, number>, session: mongoose.ClientSession): Promise<void> {
      if (!uses.size) return;
      await scoped(models, scope).articles.bulkWrite(
        [...uses].map(([id, n]) => ({ updateOne: { filter: { _id: id }, update: { $inc: { useCount: n } } } })),
        { session, ordered: false },
      );
    },
  };
}

export type ArticleRules = ReturnType<typeof articleRules>;
