import { KNOWLEDGE, KNOWLEDGE_INTERNAL } from '@helpdesk/contracts';
import { defineService } from '@helpdesk/kit';
import { articleHandlers, internalArticleHandlers } from './articles/handlers';
import { revisionHandlers } from './articles/revisions/handlers';
import { categoryHandlers } from './categories/handlers';
import { consumers } from './consumers';
import { helpCenterHandlers, internalHelpCenterHandlers } from './help-center/handlers';
import { knowledgeModels } from './models';
import { knowledgeRules } from './rules';

/** The knowledge service: articles and their revisions, categories, the public help center (docs/adr/0015, 0016). */
export const knowledgeService = defineService({
  name: 'knowledge',
  operations: { ...KNOWLEDGE, ...KNOWLEDGE_INTERNAL },
  models: knowledgeModels,
  rules: knowledgeRules,
  handlers: (rules) => ({
    ...articleHandlers(rules),
    ...internalArticleHandlers(rules),
    ...revisionHandlers(rules),
    ...categoryHandlers(rules),
    ...helpCenterHandlers(rules),
    ...internalHelpCenterHandlers(rules),
  }),
  consumers,
  // The view counter's batches are written at stop, before the relay and the connection close.
  workers: (rules) => [rules.views],
});
