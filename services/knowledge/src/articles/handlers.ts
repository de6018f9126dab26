import { KNOWLEDGE, KNOWLEDGE_INTERNAL } from '@helpdesk/contracts';
import { handlersFor } from '@helpdesk/kit';
import type { KnowledgeRules } from '../rules';

/** `/teams/{teamId}/articles…`: the team, partition and key type come from the internal token, never the URL. */
export const articleHandlers = ({ articles }: KnowledgeRules) =>
  handlersFor(KNOWLEDGE)({
    listArticles: ({ ctx, query }) => articles.list(ctx, query),
    createArticle: ({ ctx, body }) => articles.create(ctx, body),
    getArticle: ({ ctx, params }) => articles.get(ctx, params.articleId),
    updateArticle: ({ ctx, params, body }) => articles.update(ctx, params.articleId, body),
    deleteArticle: ({ ctx, params }) => articles.remove(ctx, params.articleId),
  });

/** What search, tags, export and the AI actions read articles through. */
export const internalArticleHandlers = ({ articles }: KnowledgeRules) =>
  handlersFor(KNOWLEDGE_INTERNAL)({
    getArticleSnapshot: ({ ctx, params }) => articles.snapshot(ctx, params.articleId),
  });
