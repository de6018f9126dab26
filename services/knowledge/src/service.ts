import { KNOWLEDGE, KNOWLEDGE_BULK_INTERNAL, KNOWLEDGE_INTERNAL, KNOWLEDGE_SEARCH_INTERNAL } from '@helpdesk/contracts';
import { defineService } from '@helpdesk/kit';
import { articleHandlers, internalArticleHandlers } from './articles/handlers';
import { revisionHandlers } from './articles/revisions/handlers';
import { articleBulkHandlers } from './bulk/handlers';
import { categoryHandlers } from './categories/handlers';
import { consumers } from './consumers';
import { helpCenterHandlers, internalHelpCenterHandlers } from './help-center/handlers';
import { knowledgeModels } from './collections';
import { knowledgeRules } from './rules';
import { articleSearchHandlers } from './search/handlers';

/** The knowledge service: articles and their revisions, categories, the public help center (docs/adr/0015, 0016). */
export const knowledgeService = defineService({
  name: 'knowledge',
  operations: { ...KNOWLEDGE, ...KNOWLEDGE_INTERNAL, ...KNOWLEDGE_BULK_INTERNAL, ...KNOWLEDGE_SEARCH_INTERNAL },
  models: knowledgeModels,
  rules: knowledgeRules,
  handlers: (rules, deps) => ({
    ...articleHandlers(rules),
    ...internalArticleHandlers(rules),
    ...revisionHandlers(deps),
    ...categoryHandlers(rules),
    ...helpCenterHandlers(rules),
    ...internalHelpCenterHandlers(rules),
    ...articleBulkHandlers(rules, deps),
    ...articleSearchHandlers(rules, deps.models),
  }),
  consumers,
  // The view counter's batches are written at stop, before the relay and the connection close.
  workers: (rules) => [rules.views],
});
