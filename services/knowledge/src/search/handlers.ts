import { KNOWLEDGE_SEARCH_INTERNAL, SORT_FIELD_COLUMNS } from '@helpdesk/contracts';
import { handlersFor, rankedSearch, rewriteTagEverywhere, scoped, tagCounts, viewSortOf } from '@helpdesk/kit';
import { articleSearchTokens, type ArticleDoc } from '../articles/model';
import type { KnowledgeModels } from '../collections';
import type { KnowledgeRules } from '../rules';
import { markdownToPlainText } from './plain-text';

/**
 * The knowledge service's part of search, tags and saved views (docs/adr/0034, 0035), asked by
 * dataops with the caller's (secret) key's token: drafts and private articles are the team's own.
 */
export const articleSearchHandlers = ({ articles }: KnowledgeRules, models: KnowledgeModels) =>
  handlersFor(KNOWLEDGE_SEARCH_INTERNAL)({
    searchArticlesInternal: ({ ctx, query }) =>
      rankedSearch<ArticleDoc>(
        scoped(models, ctx).articles,
        {
          titleTokensField: 'titleTokens',
          projection: { title: 1, content: 1 },
          titleOf: (a) => a.title,
          // Snippets show what a reader sees: the Markdown as plain text, in its own case.
          bodyOf: (a) => markdownToPlainText(a.content ?? ''),
          tokensOf: articleSearchTokens,
          tokenSources: { title: 1, content: 1 },
        },
        query,
      ),
    listArticleTagsInternal: async ({ ctx, query }) => ({ tags: await tagCounts(scoped(models, ctx).articles, query) }),
    rewriteArticleTagInternal: ({ ctx, body }) => rewriteTagEverywhere(scoped(models, ctx).articles, body, (id, tags) => articles.update(ctx, id, { tags })),
    listArticlesForView: ({ ctx, query }) => articles.list(ctx, query, viewSortOf(query, SORT_FIELD_COLUMNS)),
  });
