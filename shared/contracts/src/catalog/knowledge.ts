import { z } from 'zod';
import { changeFields, iso } from './common';
import type { CatalogEntry } from './read';

/**
 * The knowledge service's events (type → {version, data schema}), spread into EVENT_CATALOG in ../events.ts.
 * Snapshot schemas the events carry live here too, so that each service's events sit in one file.
 * Snapshots are complete (content, metadata, counters), so that search, tags, export and the AI
 * actions can keep projections from events alone (docs/adr/0015-knowledge.md).
 */

export const ARTICLE_STATUSES = ['draft', 'published'] as const;

/** An article as events carry it: the staff view of the spec's Article plus `rev` (projections order by it). */
export const articleSnapshotSchema = z.object({
  id: z.string(),
  title: z.string(),
  content: z.string(),
  categoryId: z.string().nullable(),
  status: z.enum(ARTICLE_STATUSES),
  isPublic: z.boolean(),
  tags: z.array(z.string()),
  metadata: z.record(z.string(), z.unknown()),
  /** `{fieldId: value}` of the team's article custom fields (docs/adr/0022); absent in events from before them. */
  customFields: z.record(z.string(), z.unknown()).optional(),
  viewCount: z.number().int(),
  useCount: z.number().int(),
  /** Published revisions kept so far (GET /articles/{id}/revisions). */
  revisionCount: z.number().int(),
  publishedAt: iso.nullable(),
  createdAt: iso,
  updatedAt: iso,
  rev: z.number().int(),
});
export type ArticleSnapshot = z.infer<typeof articleSnapshotSchema>;

/** A category as events carry it: the spec's Category. */
export const categorySnapshotSchema = z.object({
  id: z.string(),
  object: z.literal('category'),
  name: z.string(),
  slug: z.string(),
  description: z.string().nullable(),
  icon: z.string(),
  color: z.string(),
  sortOrder: z.number().int(),
  isPublic: z.boolean(),
  createdAt: iso,
  updatedAt: iso,
});
export type CategorySnapshot = z.infer<typeof categorySnapshotSchema>;

export const KNOWLEDGE_EVENTS = {
  'article.created': { version: 1, read: { op: 'getArticle' }, data: z.object({ article: articleSnapshotSchema }) },
  /** Also emitted, with `changes: ['categoryId']`, for each article of a deleted category. */
  'article.updated': { version: 1, read: { op: 'getArticle' }, data: z.object({ article: articleSnapshotSchema, ...changeFields }) },
  /** Each time a revision is kept: created published, moved to published, or title/content edited while published. */
  'article.published': { version: 1, read: { op: 'listArticleRevisions' }, data: z.object({ article: articleSnapshotSchema, revision: z.number().int() }) },
  'article.deleted': { version: 1, read: { op: 'getArticle' }, data: z.object({ articleId: z.string(), article: articleSnapshotSchema }) },
  'category.created': { version: 1, read: { op: 'getCategory' }, data: z.object({ category: categorySnapshotSchema }) },
  'category.updated': { version: 1, read: { op: 'getCategory' }, data: z.object({ category: categorySnapshotSchema, ...changeFields }) },
  'category.deleted': {
    version: 1, read: { op: 'getCategory' },
    data: z.object({ categoryId: z.string(), category: categorySnapshotSchema, articlesUncategorized: z.number().int() }),
  },
} as const satisfies Record<string, CatalogEntry>;
