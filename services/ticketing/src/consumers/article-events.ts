import { on, type Subscription } from '@helpdesk/kit';
import type { AiRules } from '../ai/rules';

/** The articles suggest-reply searches (docs/adr/0029), kept from knowledge's events. */
export const articleEventConsumers = (ai: Pick<AiRules, 'applyArticle'>): Subscription[] => [
  on('article.created', (e) => ai.applyArticle(e, e.data.article)),
  on('article.updated', (e) => ai.applyArticle(e, e.data.article)),
  on('article.published', (e) => ai.applyArticle(e, e.data.article)),
  on('article.deleted', (e) => ai.applyArticle(e, e.data.article, true)),
];
