import { ARTICLE_CATEGORIES } from './categories';
import { ARTICLES, ARTICLES_INTERNAL } from './articles';
import { HELP_CENTER, HELP_CENTER_INTERNAL } from './help-center';

/** The knowledge service's operations, one file per resource (docs/adr/0015, 0016). */
export * from './articles';
export * from './categories';
export * from './help-center';
export * from './dataops';

export const KNOWLEDGE = { ...ARTICLES, ...ARTICLE_CATEGORIES, ...HELP_CENTER };
export const KNOWLEDGE_INTERNAL = { ...ARTICLES_INTERNAL, ...HELP_CENTER_INTERNAL };
