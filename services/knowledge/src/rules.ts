import { customFieldRules, type ServiceDeps } from '@helpdesk/kit';
import { articleRules } from './articles/rules';
import { ViewCounter } from './articles/view-counter';
import { categoryRules } from './categories/rules';
import { helpCenterRules } from './help-center/rules';
import type { KnowledgeModels } from './collections';
import { teamRefRules } from './teams/rules';

/** Every resource's rules, wired once; handlers, consumers and the view counter share them. */
export function knowledgeRules({ conn, models, soleInstance }: ServiceDeps<KnowledgeModels>) {
  const views = new ViewCounter(models.articles);
  // Categories and articles need each other: a category delete uncategorizes its articles.
  const categories = categoryRules({ conn, models, uncategorize: (...args) => articles.uncategorize(...args) });
  const customFields = customFieldRules({ definitions: models.customFieldDefs, records: models.articles, contentType: 'article', soleInstance });
  const articles = articleRules({ conn, models, categories, views, customFields });
  const teams = teamRefRules({ models });
  const helpCenter = helpCenterRules({ conn, models, articles, categories, views, teams });
  return { views, categories, articles, helpCenter, customFields, teams };
}
export type KnowledgeRules = ReturnType<typeof knowledgeRules>;
