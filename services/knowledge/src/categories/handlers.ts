import { KNOWLEDGE } from '@helpdesk/contracts';
import { handlersFor } from '@helpdesk/kit';
import type { KnowledgeRules } from '../rules';

/** `/teams/{teamId}/categories…`. */
export const categoryHandlers = ({ categories }: KnowledgeRules) =>
  handlersFor(KNOWLEDGE)({
    listCategories: ({ ctx, query }) => categories.list(ctx, query),
    createCategory: ({ ctx, body }) => categories.create(ctx, body),
    getCategory: ({ ctx, params }) => categories.get(ctx, params.categoryId),
    updateCategory: ({ ctx, params, body }) => categories.update(ctx, params.categoryId, body),
    deleteCategory: ({ ctx, params }) => categories.remove(ctx, params.categoryId),
  });
