import type mongoose from 'mongoose';
import slugify from 'slugify';
import {
  CATEGORY_SLUG_MAX,
  DEFAULT_CATEGORY_COLOR,
  DEFAULT_CATEGORY_ICON,
  type CategoryView,
  type CreateCategoryInput,
  type ListCategoriesQuery,
  type Page,
  type UpdateCategoryInput,
} from '@helpdesk/contracts';
import {
  changeSet,
  conflictOnDuplicate,
  eventScopeOf,
  findPage,
  foundOr404,
  newUuid,
  notFound,
  parameterInvalid,
  randomBase62,
  scoped,
  withOutbox,
  type Emit,
  type RequestContext,
  type Scope,
  type Unscoped,
  type ScopedFilter,
} from '@helpdesk/kit';
import type { KnowledgeModels } from '../collections';
import { isKnownIcon } from './icons';
import type { CategoryDoc } from './model';
import { categoryView } from './view';

export interface CategoryRulesDeps {
  conn: mongoose.Connection;
  models: KnowledgeModels;
  /** Uncategorizes a deleted category's articles inside the delete's transaction; returns how many. */
  uncategorize(ctx: RequestContext, categoryId: string, session: mongoose.ClientSession, emit: Emit): Promise<number>;
}

/**
 * The slug of a name: slugify's lowercase strict form, cut to 100 characters. A name with no letter
 * or digit slugify knows (emoji, CJK) gets `category-` and 8 random characters instead.
 */
export function slugOf(name: string): string {
  const slug = slugify(name, { lower: true, strict: true }).slice(0, CATEGORY_SLUG_MAX).replace(/-+$/, '');
  return slug || `category-${randomBase62(8).toLowerCase()}`;
}

function checkIcon(icon: string | undefined): void {
  if (icon !== undefined && !isKnownIcon(icon)) {
    throw parameterInvalid('icon', `Invalid icon '${icon}': not a Lucide icon name (see https://lucide.dev/icons).`);
  }
}

const slugTaken = (slug: string) => ({ slug: { param: 'name', message: `A category with the slug '${slug}' already exists.` } });

/** Display order: sortOrder, then name, then id (stable pages). */
const DISPLAY_ORDER = { sortOrder: 1, name: 1, _id: 1 } as const;

/** The rules of categories (docs/adr/0015-knowledge.md). */
export function categoryRules({ conn, models, uncategorize }: CategoryRulesDeps) {
  const publicOnly = (ctx: Pick<RequestContext, 'keyType'>) => ctx.keyType === 'publishable';

  return {
    /**
     * Files an article in the category inside the caller's transaction: false when there is no such
     * category. It writes to the category, so a concurrent delete of it conflicts and one retries.
     */
    async link(scope: Scope, id: string, session: mongoose.ClientSession): Promise<boolean> {
      const { matchedCount } = await scoped(models, scope).categories.updateOne({ _id: id }, { $inc: { articleLinks: 1 } }, { session });
      return matchedCount === 1;
    },

    async isPublic(scope: Scope, id: string): Promise<boolean> {
      return !!(await scoped(models, scope).categories.exists({ _id: id, isPublic: true }));
    },

    async publicIds(scope: Scope): Promise<string[]> {
      return (await scoped(models, scope).categories.find({ isPublic: true }, { _id: 1 }).lean<{ _id: string }[]>()).map((c) => c._id);
    },

    /** Public categories in display order (the help center's home page). */
    async publicList(scope: Scope): Promise<CategoryView[]> {
      return (await scoped(models, scope).categories.find({ isPublic: true }).sort(DISPLAY_ORDER).lean<CategoryDoc[]>()).map(categoryView);
    },

    async list(ctx: RequestContext, q: ListCategoriesQuery): Promise<Page<CategoryView>> {
      const filter: ScopedFilter<CategoryDoc> = {};
      if (q.isPublic !== undefined) filter.isPublic = q.isPublic;
      // A public reader asking for private categories gets none.
      if (publicOnly(ctx)) filter.isPublic = q.isPublic === false ? { $in: [] } : true;
      const { rows, pagination } = await findPage(scoped(models, ctx).categories, filter, q, { sort: DISPLAY_ORDER });
      return { data: rows.map(categoryView), pagination };
    },

    async get(ctx: RequestContext, id: string): Promise<CategoryView> {
      const c = await foundOr404(scoped(models, ctx).categories.findOne({ _id: id }).lean<CategoryDoc>(), 'category', id);
      if (publicOnly(ctx) && !c.isPublic) throw notFound('category', id);
      return categoryView(c);
    },

    async create(ctx: RequestContext, input: CreateCategoryInput): Promise<CategoryView> {
      checkIcon(input.icon);
      const now = new Date();
      const doc: Unscoped<CategoryDoc> = {
        _id: newUuid(),
        name: input.name,
        slug: slugOf(input.name),
        description: input.description ?? null,
        icon: input.icon ?? DEFAULT_CATEGORY_ICON,
        color: input.color ?? DEFAULT_CATEGORY_COLOR,
        sortOrder: input.sortOrder ?? 0,
        isPublic: input.isPublic ?? false,
        articleLinks: 0,
        createdAt: now,
        updatedAt: now,
      };
      await conflictOnDuplicate(
        () =>
          withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
            await scoped(models, ctx).categories.create([doc], { session });
            emit({ type: 'category.created', data: { category: categoryView(doc) } });
          }),
        slugTaken(doc.slug),
      );
      return categoryView(doc);
    },

    /** A rename regenerates the slug; a slug another category has is 409. */
    async update(ctx: RequestContext, id: string, input: UpdateCategoryInput): Promise<CategoryView> {
      checkIcon(input.icon);
      const db = scoped(models, ctx);
      const slug = input.name !== undefined ? slugOf(input.name) : undefined;
      const next = await conflictOnDuplicate(
        () =>
          withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
            const cur = await foundOr404(db.categories.findOne({ _id: id }).session(session).lean<CategoryDoc>(), 'category', id);
            const { set, previous, change, changes: changedFields, applyDefined } = changeSet<CategoryDoc>(cur);
            if (input.name !== undefined) change('name', input.name);
            if (slug !== undefined) change('slug', slug);
            applyDefined(input, ['description', 'icon', 'color', 'sortOrder', 'isPublic']);
            const changes = changedFields();
            if (!changes.length) return cur;
            set.updatedAt = new Date();
            const written = (await db.categories.findOneAndUpdate({ _id: id }, { $set: set }, { session, returnDocument: 'after' }).lean<CategoryDoc>())!;
            emit({ type: 'category.updated', data: { category: categoryView(written), changes, previous } });
            return written;
          }),
        slugTaken(slug ?? ''),
      );
      return categoryView(next);
    },

    /** Its articles become uncategorized in the same transaction, each emitting article.updated. */
    async remove(ctx: RequestContext, id: string): Promise<{ id: string; deleted: true }> {
      const db = scoped(models, ctx);
      await withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
        const cur = await foundOr404(db.categories.findOneAndDelete({ _id: id }, { session }).lean<CategoryDoc>(), 'category', id);
        const articlesUncategorized = await uncategorize(ctx, id, session, emit);
        emit({ type: 'category.deleted', data: { categoryId: id, category: categoryView(cur), articlesUncategorized } });
      });
      return { id, deleted: true };
    },
  };
}

export type CategoryRules = ReturnType<typeof categoryRules>;
