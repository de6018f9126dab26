import { on, type Subscription } from '@helpdesk/kit';
import { applyArticle } from '../ai/articles';
import type { TicketingModels } from '../collections';

/** The articles suggest-reply searches (docs/adr/0029), kept from knowledge's events. */
export const articleEventConsumers = (deps: { models: TicketingModels }): Subscription[] => [
  on('article.created', (e) => applyArticle(deps, e, e.data.article)),
  on('article.updated', (e) => applyArticle(deps, e, e.data.article)),
  on('article.published', (e) => applyArticle(deps, e, e.data.article)),
  on('article.deleted', (e) => applyArticle(deps, e, e.data.article, true)),
];
