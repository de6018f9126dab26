import type mongoose from 'mongoose';
import type { HelpCenterPageQuery, HelpCenterView, UpdateHelpCenterInput } from '@helpdesk/contracts';
import { escapeRegex, scoped, type RequestContext, type Scope, type ScopedFilter } from '@helpdesk/kit';
import { publicArticleFilter, type ArticleRules } from '../articles/rules';
import type { ArticleDoc } from '../articles/model';
import { articleView } from '../articles/view';
import type { ViewCounter } from '../articles/view-counter';
import type { CategoryRules } from '../categories/rules';
import type { KnowledgeModels } from '../collections';
import type { TeamRefRules } from '../teams/rules';
import type { HelpCenterDoc } from './model';
import { articlePage, homePage, notFoundPage, searchPage, type Site } from './render';
import { helpCenterView } from './view';

export const DEFAULT_HELP_CENTER_TITLE = 'Help center';
/** At most this many articles on the home page and in search results. */
const PAGE_ARTICLES_MAX = 200;
/** `art_…`, optionally followed by `-` and the title's slug. */
const ARTICLE_REF_RE = /^(art_[A-Za-z0-9]{8,64})(?:-[A-Za-z0-9-]*)?$/;

export interface HelpCenterPage {
  status: 200 | 404;
  title: string;
  html: string;
}

/**
 * The public help center (docs/adr/0016-help-center.md): a switch per team and partition, and the
 * pages the gateway serves at `/help/{teamSlug}` without a key. It reads as a publishable key does:
 * the public knowledge base only, and an article page counts a view.
 */
export function helpCenterRules(deps: { conn: mongoose.Connection; models: KnowledgeModels; articles: ArticleRules; categories: CategoryRules; views: ViewCounter; teams: TeamRefRules }) {
  const { models, articles, categories, views, teams } = deps;
  const viewOf = async (ctx: RequestContext, h: HelpCenterDoc | null) => helpCenterView(h, { mode: ctx.mode, teamSlug: await teams.slugOf(ctx.teamId) });
  const idOf = (scope: Scope) => `${scope.teamId}:${scope.mode}`;
  const settings = (scope: Scope) => scoped(models, scope).helpCenters.findOne({}).lean<HelpCenterDoc>(); // one per partition

  async function publicArticles(scope: Scope, search?: string): Promise<ArticleDoc[]> {
    const filter: ScopedFilter<ArticleDoc>[] = [publicArticleFilter(await categories.publicIds(scope))];
    if (search) {
      const re = { $regex: escapeRegex(search), $options: 'i' };
      filter.push({ $or: [{ title: re }, { content: re }] });
    }
    return scoped(models, scope).articles.find({ $and: filter }).sort({ title: 1, _id: 1 }).limit(PAGE_ARTICLES_MAX).lean<ArticleDoc[]>();
  }

  return {
    async get(ctx: RequestContext): Promise<HelpCenterView> {
      return viewOf(ctx, await settings(ctx));
    },

    /** Whether the partition's help center is on (an article's `helpCenterVisible`). */
    async isOn(scope: Scope): Promise<boolean> {
      return (await settings(scope))?.enabled ?? false;
    },

    async update(ctx: RequestContext, input: UpdateHelpCenterInput): Promise<HelpCenterView> {
      const cur = await settings(ctx);
      const set: Partial<HelpCenterDoc> = {};
      if (input.enabled !== undefined && input.enabled !== (cur?.enabled ?? false)) set.enabled = input.enabled;
      if (input.title !== undefined && input.title !== (cur?.title ?? null)) set.title = input.title;
      if (!Object.keys(set).length && cur) return viewOf(ctx, cur);
      const written = await scoped(models, ctx)
        .helpCenters.findOneAndUpdate(
          { _id: idOf(ctx) },
          { $set: { ...set, updatedAt: new Date() }, $setOnInsert: { enabled: set.enabled ?? false, title: set.title ?? null } },
          { upsert: true, returnDocument: 'after' },
        )
        .lean<HelpCenterDoc>();
      return viewOf(ctx, written);
    },

    /** One page: an article (`article`), search results (`search`) or the home page; 404 when off or not public. */
    async page(ctx: RequestContext, q: HelpCenterPageQuery): Promise<HelpCenterPage> {
      const hc = await settings(ctx);
      const site: Site = { base: q.base, mode: ctx.mode, title: hc?.title ?? DEFAULT_HELP_CENTER_TITLE };
      // Off, or never turned on, looks exactly like a team that does not exist.
      const missing = (): HelpCenterPage => ({ status: 404, title: 'Not found', html: notFoundPage({ ...site, title: DEFAULT_HELP_CENTER_TITLE }) });
      if (!hc?.enabled) return missing();
      const asPublic = (a: ArticleDoc) => articleView(a, { publicReader: true, pendingViews: views.unstored(ctx, a._id) });
      if (q.article !== undefined) {
        const ref = ARTICLE_REF_RE.exec(q.article);
        const a = ref && (await scoped(models, ctx).articles.findOne({ _id: ref[1] }).lean<ArticleDoc>());
        if (!a || !(await articles.isPubliclyVisible(ctx, a))) return { ...missing(), html: notFoundPage(site) };
        if (q.countView !== false) views.count(ctx, a._id);
        const category = a.categoryId ? await categories.get(ctx, a.categoryId).catch(() => null) : null;
        return { status: 200, title: a.title, html: articlePage(site, asPublic(a), category) };
      }
      const search = q.search?.trim();
      if (search) return { status: 200, title: `Search: ${search}`, html: searchPage(site, search, (await publicArticles(ctx, search)).map(asPublic)) };
      const [cats, arts] = await Promise.all([categories.publicList(ctx), publicArticles(ctx)]);
      return { status: 200, title: site.title, html: homePage(site, cats, arts.map(asPublic)) };
    },
  };
}

export type HelpCenterRules = ReturnType<typeof helpCenterRules>;
