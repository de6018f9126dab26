import { KNOWLEDGE } from '@helpdesk/contracts';
import { handlersFor, type ServiceDeps } from '@helpdesk/kit';
import type { KnowledgeModels } from '../../collections';
import { listArticleRevisions } from './list';

/** `/teams/{teamId}/articles/{articleId}/revisions`. */
export const revisionHandlers = ({ models }: Pick<ServiceDeps<KnowledgeModels>, 'models'>) =>
  handlersFor(KNOWLEDGE)({
    listArticleRevisions: ({ ctx, params, query }) => listArticleRevisions({ models }, ctx, params.articleId, query),
  });
