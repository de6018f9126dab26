import { KNOWLEDGE } from '@helpdesk/contracts';
import { handlersFor } from '@helpdesk/kit';
import type { KnowledgeRules } from '../../rules';

/** `/teams/{teamId}/articles/{articleId}/revisions`. */
export const revisionHandlers = ({ revisions }: KnowledgeRules) =>
  handlersFor(KNOWLEDGE)({
    listArticleRevisions: ({ ctx, params, query }) => revisions.list(ctx, params.articleId, query),
  });
