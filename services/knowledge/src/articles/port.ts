import type mongoose from 'mongoose';
import type { CustomFieldRules, Scope } from '@helpdesk/kit';
import type { KnowledgeModels } from '../collections';
import type { ViewCounter } from './view-counter';

/** What the articles' use cases reach in the database. */
export interface ArticleStore {
  conn: mongoose.Connection;
  models: KnowledgeModels;
}

/** What articles need from categories: whether one is public, the public ones, and linking an article to one. */
export interface ArticleCategories {
  isPublic(scope: Scope, id: string): Promise<boolean>;
  publicIds(scope: Scope): Promise<string[]>;
  /** False when the category is not the team's and partition's. */
  link(scope: Scope, id: string, session: mongoose.ClientSession): Promise<boolean>;
}

/** The article views counted in memory and not stored yet. */
export type ArticleViews = Pick<ViewCounter, 'count' | 'unstored' | 'settled'>;

/** What articles need from the team's custom field definitions. */
export type ArticleFields = Pick<CustomFieldRules, 'resolve'>;
