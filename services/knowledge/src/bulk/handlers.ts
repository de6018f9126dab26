import { createArticleBody, KNOWLEDGE_BULK_INTERNAL, updateArticleBody, type ImportRow } from '@helpdesk/contracts';
import { eachId, escapeRegex, exportPage, handlersFor, importRows, parseInput, scoped, type ServiceDeps } from '@helpdesk/kit';
import type { ArticleDoc } from '../articles/model';
import { articleView } from '../articles/view';
import type { KnowledgeModels } from '../collections';
import type { KnowledgeRules } from '../rules';

/** An article's match key on import (docs/adr/0037): its title, case-insensitive. */
const titleOf = (row: ImportRow) => (typeof row.data.title === 'string' ? row.data.title.trim() : null);

/**
 * `/internal/{bulk,export,import}/articles` (docs/adr/0036, 0037): every article goes through the
 * article rules (PATCH, DELETE, create), with their validation, revisions and events.
 */
export const articleBulkHandlers = ({ articles }: KnowledgeRules, { models }: ServiceDeps<KnowledgeModels>) =>
  handlersFor(KNOWLEDGE_BULK_INTERNAL)({
    bulkArticles: async ({ ctx, body }) => {
      if (body.action === 'delete') return eachId(body.ids, (id) => articles.remove(ctx, id));
      const data = parseInput(updateArticleBody, body.data ?? {});
      return eachId(body.ids, (id) => articles.update(ctx, id, data));
    },

    exportArticlesPage: ({ ctx, body }) =>
      exportPage<ArticleDoc>(scoped(models, ctx).articles, body, {
        view: (a) => articleView(a),
        filterOf: (f) => (f.status ? { status: f.status } : {}),
      }),

    importArticleRows: async ({ ctx, body }) => {
      const db = scoped(models, ctx);
      const outcomes = await importRows(body.rows, body.mergeStrategy, {
        match: async (row) => {
          const title = titleOf(row);
          if (!title) return null;
          const found = await db.articles.findOne({ title: { $regex: `^${escapeRegex(title)}$`, $options: 'i' } }, { _id: 1 }).lean<{ _id: string }>();
          return found?._id ?? null;
        },
        matchLabel: (row) => `the article titled '${titleOf(row) ?? ''}'`,
        create: async (row) => ({ id: (await articles.create(ctx, parseInput(createArticleBody, row.data))).id }),
        update: async (id, row) => ({ id: (await articles.update(ctx, id, parseInput(updateArticleBody, row.data))).id }),
      });
      return { outcomes };
    },
  });
