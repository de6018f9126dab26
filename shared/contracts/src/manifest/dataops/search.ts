import { z } from 'zod';
import { SORT_DIRECTIONS, type ViewEntityType } from '../../catalog/workspace';
import { paginationSchema, TAG_MAX } from '../../fields';
import { type OperationDef } from '../operation';
import { listPostsQuery } from '../community/posts';
import { listCustomersQuery } from '../customers/customers';
import { listArticlesQuery } from '../knowledge/articles';
import { listTicketsQuery } from '../ticketing/tickets';

/**
 * What dataops asks the owning services for search, tags and saved-view execution (docs/adr/0034,
 * 0035): the schemas and the operations' shape, declared by each owner in its `<service>/dataops.ts`.
 * dataops fans out with the caller's internal token, so each one answers in the caller's team and
 * partition, with its own rules and events. Never routed by the gateway.
 */

// ---------- search ----------

export const SEARCH_HIT_LIMIT_MAX = 50;
export const internalSearchQuery = z.strictObject({
  q: z.string().min(1).max(200),
  limit: z.coerce.number().int().min(1).max(SEARCH_HIT_LIMIT_MAX),
});
export type InternalSearchQuery = z.output<typeof internalSearchQuery>;

/**
 * One service's hits: at most `limit`, best first (a title match, score 2 or 3 for an exact title,
 * above a body match, score 1; then the most recently updated), and how many records match in all.
 * The public search result is this hit with its type (search-and-tags.ts).
 */
export const searchHitSchema = z.object({
  id: z.string(),
  /** A ticket's title, a customer's name, an article's title. */
  title: z.string(),
  /** Where the query matched: `title` ranks above `body` (docs/adr/0034). */
  matchedIn: z.enum(['title', 'body']),
  /** A short excerpt of the matching text (null: the title matched and there is no body to show). */
  snippet: z.string().nullable(),
  score: z.number(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type SearchHit = z.output<typeof searchHitSchema>;
export const searchHitsSchema = z.object({ hits: z.array(searchHitSchema), total: z.number().int() });
export type SearchHits = z.output<typeof searchHitsSchema>;

// ---------- tags ----------

export const TAG_ROWS_MAX = 1_000;
const tagField = z.string().trim().min(1).max(TAG_MAX);
export const internalTagsQuery = z.strictObject({
  search: z.string().max(TAG_MAX).optional(),
  limit: z.coerce.number().int().min(1).max(TAG_ROWS_MAX),
});
export const tagCountsSchema = z.object({ tags: z.array(z.object({ tag: z.string(), count: z.number().int() })) });
/** A merge (`toTag` set) or a delete (`toTag` null) of one tag on every record of the entity. */
export const rewriteTagBody = z.strictObject({ fromTag: tagField, toTag: tagField.nullable() });
export const rewriteTagResultSchema = z.object({ updated: z.number().int() });

// ---------- saved-view execution ----------

/** What a saved view may sort by, per entity (the spec's snake_case names; default `created_at`). */
export const VIEW_SORT_FIELDS = {
  tickets: ['created_at', 'updated_at', 'title'],
  customers: ['created_at', 'updated_at', 'name', 'email'],
  articles: ['created_at', 'updated_at', 'title'],
  community_posts: ['created_at', 'updated_at', 'title'],
} as const;
/** The spec's sort names to stored fields. */
export const SORT_FIELD_COLUMNS: Record<string, string> = { created_at: 'createdAt', updated_at: 'updatedAt', title: 'title', name: 'name', email: 'emailLower' };

/** A saved view's filters: exactly the filters of that entity's list endpoint (no pagination, no expand). */
export const VIEW_FILTERS = {
  tickets: listTicketsQuery.pick({ status: true, priority: true, customerId: true, assignedTo: true, search: true }),
  customers: listCustomersQuery.pick({ status: true, sentiment: true, search: true }),
  articles: listArticlesQuery.pick({ category: true, status: true, isPublic: true, search: true }),
  community_posts: listPostsQuery.pick({ topic: true, status: true }),
} as const;

export const sortedQuery = <F extends readonly [string, ...string[]]>(fields: F) => ({
  sortField: z.enum(fields).optional().default(fields[0] as F[0]),
  sortDirection: z.enum(SORT_DIRECTIONS).optional().default('desc'),
});

const page = <S extends z.ZodType>(item: S) => z.object({ data: z.array(item), pagination: paginationSchema });

// ---------- operations ----------

const searchInternalBase = { internal: true, keys: 'staff', permission: null, params: {} } as const;

/** The search, tag and view-list operations of one owning service. */
export function searchOperationsOf<const S extends string, const E extends string>(service: S, entity: E) {
  const base = { ...searchInternalBase, service, tag: entity } as const;
  return {
    search: {
      ...base,
      method: 'GET',
      path: `/internal/search/${entity}`,
      summary: `Search ${entity}: best hits and the total`,
      query: internalSearchQuery,
      success: { status: 200, data: searchHitsSchema, shape: 'envelope' },
      errors: ['parameter_missing', 'parameter_invalid'],
    },
    tags: {
      ...base,
      method: 'GET',
      path: `/internal/tags/${entity}`,
      summary: `Tags on ${entity} with their counts, most used first`,
      query: internalTagsQuery,
      success: { status: 200, data: tagCountsSchema, shape: 'envelope' },
      errors: ['parameter_invalid'],
    },
    rewriteTag: {
      ...base,
      method: 'POST',
      path: `/internal/tags/${entity}/rewrite`,
      summary: `Merge or remove a tag on every one of the ${entity} (each through its update rule and event)`,
      body: rewriteTagBody,
      success: { status: 200, data: rewriteTagResultSchema, shape: 'envelope' },
      errors: ['parameter_missing', 'parameter_invalid'],
    },
  } satisfies Record<string, OperationDef>;
}
export const viewListOperation = <Q extends z.ZodObject, I extends z.ZodType>(service: string, entity: ViewEntityType, query: Q, item: I) =>
  ({
    ...searchInternalBase,
    service,
    tag: entity,
    method: 'GET',
    path: `/internal/views/${entity}`,
    summary: `A page of the ${entity} list, filtered as that list filters, sorted by sortField and sortDirection`,
    query,
    success: { status: 200, data: page(item), shape: 'envelope' },
    errors: ['parameter_missing', 'parameter_invalid'],
  }) as const;
