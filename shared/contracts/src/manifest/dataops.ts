import { z } from 'zod';
import { queryInt, SEARCH_MAX } from '../fields';
import { defineOperations } from './operation';

/**
 * The dataops service's operations (docs/adr/0034): the thin cross-service part of search, tags,
 * saved-view execution, bulk, export and import. Each owning service does the work on its own data
 * through its internal operations (search-internal.ts, bulk-internal.ts); dataops fans out and merges.
 */

export const SEARCH_TYPES = ['tickets', 'customers', 'articles'] as const;
export type SearchType = (typeof SEARCH_TYPES)[number];
export const SEARCH_LIMIT_MAX = 50;

/** `types=tickets,articles` (or repeated): a non-empty subset, duplicates dropped. */
const searchTypesField = z
  .union([z.string(), z.array(z.string())])
  .transform((v) => [...new Set((Array.isArray(v) ? v : [v]).flatMap((s) => s.split(',')).map((s) => s.trim()))])
  .pipe(z.array(z.enum(SEARCH_TYPES)).min(1));

export const searchQuery = z.strictObject({
  q: z
    .string()
    .max(SEARCH_MAX)
    .refine((s) => s.trim().length > 0, { message: 'must not be empty' }),
  types: searchTypesField.optional(),
  limit: queryInt().pipe(z.number().int().min(1).max(SEARCH_LIMIT_MAX)).optional().default(20),
});
export type SearchQuery = z.output<typeof searchQuery>;

/** One hit: its type, id, title (a ticket's title, a customer's name, an article's title), a snippet and its score. */
export const searchResultSchema = z
  .object({
    type: z.enum(SEARCH_TYPES),
    id: z.string(),
    title: z.string(),
    /** Where the query matched: `title` ranks above `body` (docs/adr/0034). */
    matchedIn: z.enum(['title', 'body']),
    /** A short excerpt of the matching text (null: the title matched and there is no body to show). */
    snippet: z.string().nullable(),
    score: z.number(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'SearchResult' });
export type SearchResult = z.output<typeof searchResultSchema>;

export const searchAnswerSchema = z
  .object({ results: z.array(searchResultSchema), total: z.number().int(), query: z.string() })
  .meta({ id: 'SearchResults' });

const dataops = { service: 'dataops', keys: 'secret' } as const;

export const DATAOPS = defineOperations({
  search: {
    ...dataops,
    tag: 'Search',
    method: 'GET',
    path: '/teams/{teamId}/search',
    summary: 'Search tickets, customers and articles',
    description:
      '`q` (1 to 200 characters, case-insensitive, every word must match), `types` (comma-separated subset of `tickets`, ' +
      '`customers`, `articles`; default all), `limit` (default 20, at most 50). Needs a secret key and the view permission ' +
      'of every selected type (`view_tickets`, `view_customers`, `view_articles`). Ranking (docs/adr/0034): a title match ' +
      '(ticket title, customer name or email, article title) above a body match (ticket messages, article content), then ' +
      'newest first. Internal notes are searched only for keys with `view_tickets`; the other partition is never searched. ' +
      '`total` counts every match (results are capped at `limit`).',
    permission: null,
    params: { teamId: 'team' },
    query: searchQuery,
    success: { status: 200, data: searchAnswerSchema, shape: 'envelope' },
    errors: ['parameter_missing', 'parameter_invalid'],
  },
});
