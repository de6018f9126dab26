import { z } from 'zod';
import { VIEW_ENTITY_TYPES } from '../../catalog/workspace';
import { paginationFields, queryInt, SEARCH_MAX, TAG_MAX } from '../../fields';
import { defineOperations } from '../operation';
import { communityPostSchema } from '../community/posts';
import { customerSchema } from '../customers/customers';
import { articleSchema } from '../knowledge/articles';
import { ticketSchema } from '../ticketing/tickets';
import { searchHitSchema, TAG_ROWS_MAX } from './search';
import { DATAOPS_TRANSFER } from './transfer';

/**
 * The dataops service's operations (docs/adr/0034): the thin cross-service part of search, tags,
 * saved-view execution, bulk, export and import. Each owning service does the work on its own data
 * through its internal operations (their shape in dataops/search.ts and dataops/transfer.ts, declared
 * by each owner in its <service>/dataops.ts); dataops fans out and merges.
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

/** One hit: its type, then the owning service's hit (id, title, where it matched, a snippet, its score, timestamps). */
export const searchResultSchema = z.object({ type: z.enum(SEARCH_TYPES), ...searchHitSchema.shape }).meta({ id: 'SearchResult' });
export type SearchResult = z.output<typeof searchResultSchema>;

export const searchAnswerSchema = z
  .object({ results: z.array(searchResultSchema), total: z.number().int(), query: z.string() })
  .meta({ id: 'SearchResults' });

// ---------- tags ----------

export const TAG_ENTITIES = ['tickets', 'customers', 'articles'] as const;
export type TagEntity = (typeof TAG_ENTITIES)[number];
const tagField = z.string().trim().min(1).max(TAG_MAX);
export const listTagsQuery = z.strictObject({
  entity: z.enum(TAG_ENTITIES).optional(),
  search: z.string().max(TAG_MAX).optional(),
  limit: queryInt().pipe(z.number().int().min(1).max(TAG_ROWS_MAX)).optional().default(100),
});
export const tagRowSchema = z.object({ tag: z.string(), entity: z.enum(TAG_ENTITIES), count: z.number().int() }).meta({ id: 'TagRow' });
export const mergeTagsBody = z.strictObject({ action: z.literal('merge'), fromTag: tagField, toTag: tagField, entity: z.enum(TAG_ENTITIES).optional() });
export const deleteTagBody = z.strictObject({ tag: tagField, entity: z.enum(TAG_ENTITIES).optional() });
/** How many records changed, per entity (only the entities the request covered). */
const perEntity = z.object({ tickets: z.number().int().optional(), customers: z.number().int().optional(), articles: z.number().int().optional() });
export const tagMergeSchema = z
  .object({ merged: z.number().int(), fromTag: z.string(), toTag: z.string(), entities: perEntity })
  .meta({ id: 'TagMerge' });
export const tagDeleteSchema = z
  .object({ deleted: z.literal(true), tag: z.string(), removedFrom: z.number().int(), entities: perEntity })
  .meta({ id: 'TagDelete' });

// ---------- saved-view execution ----------

export const executeViewQuery = z.strictObject({ ...paginationFields(20, 100) });
/** One row of the view's entity, exactly as that entity's list endpoint answers it. */
export const viewRowSchema = z.union([ticketSchema, customerSchema, articleSchema, communityPostSchema]);

const dataops = { service: 'dataops', keys: 'secret' } as const;

export const DATAOPS = defineOperations({
  // Bulk, export and import (bulk-internal.ts, docs/adr/0036, 0037).
  ...DATAOPS_TRANSFER,
  search: {
    ...dataops,
    tag: 'Search',
    method: 'GET',
    path: '/teams/{teamId}/search',
    summary: 'Search tickets, customers and articles',
    description:
      '`q` (1 to 200 characters; every word must be a whole word of the record: case, accents and punctuation aside, so ' +
      '`resume` finds `Résumé` and `floor-3` is `floor` and `3`, but `kios` does not find `kiosk`), `types` (comma-separated subset of `tickets`, ' +
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
  listTags: {
    ...dataops,
    tag: 'Tags',
    method: 'GET',
    path: '/teams/{teamId}/tags',
    summary: 'List tags with their counts',
    description:
      'Rows `{tag, entity, count}` (one per tag and entity type: how many records carry it), most used first, then by tag. `entity` ' +
      '(`tickets`, `customers`, `articles`) narrows to one type and needs its view permission; without it the key needs `view_tickets`, ' +
      '`view_customers` and `view_articles`. `search`: a case-insensitive substring of the tag. `limit` (default 100, at most 1000) caps ' +
      'the rows. Tags have no create call: a tag exists by being in a record\'s `tags`.',
    permission: null,
    params: { teamId: 'team' },
    query: listTagsQuery,
    success: { status: 200, data: z.array(tagRowSchema), shape: 'envelope' },
    errors: ['parameter_invalid'],
  },
  mergeTags: {
    ...dataops,
    tag: 'Tags',
    method: 'POST',
    path: '/teams/{teamId}/tags',
    summary: 'Merge one tag into another',
    description:
      '`action` must be `merge`. Every record of the `entity` (or of all three without it: then the key needs `manage_tickets`, ' +
      '`manage_customers` and `manage_articles`) carrying `fromTag` gets `toTag` in its place, once (a record with both keeps one), each ' +
      'through its own service\'s update rule and `*.updated` event. `merged` counts the records changed (0 when none carried ' +
      '`fromTag`), `entities` per type. `fromTag` equal to `toTag` is 400 (param toTag). Tags match exactly (case-sensitive).',
    permission: null,
    params: { teamId: 'team' },
    body: mergeTagsBody,
    success: { status: 200, data: tagMergeSchema, shape: 'envelope' },
    errors: ['parameter_missing', 'parameter_invalid'],
  },
  deleteTag: {
    ...dataops,
    tag: 'Tags',
    method: 'DELETE',
    path: '/teams/{teamId}/tags',
    summary: 'Remove a tag from every record',
    description:
      'JSON body `tag` (required) and `entity`. Every record of the `entity` (or of all three: then the key needs the three manage ' +
      'permissions) loses `tag`, each through its own service\'s update rule and `*.updated` event. `removedFrom` counts the records ' +
      'changed, `entities` per type.',
    permission: null,
    params: { teamId: 'team' },
    body: deleteTagBody,
    success: { status: 200, data: tagDeleteSchema, shape: 'envelope' },
    errors: ['parameter_missing', 'parameter_invalid'],
  },
  executeView: {
    ...dataops,
    keys: 'staff',
    tag: 'Saved views',
    method: 'GET',
    path: '/teams/{teamId}/views/{viewId}/execute',
    summary: 'Run a saved view',
    description:
      `The view's entity list (${VIEW_ENTITY_TYPES.map((e) => `\`${e}\``).join(', ')}) filtered and sorted as the view says, each row in ` +
      'the same shape as that entity\'s list endpoint, with `pagination` at the top level (`page`, `pageSize` default 20, at most 100). ' +
      'Needs the entity\'s view permission (`view_tickets`, `view_customers`, `view_articles`, `view_community`); a view the key cannot ' +
      'see (another\'s private view, another team\'s or partition\'s) is 404. Test keys see test data only (docs/adr/0035).',
    permission: null,
    params: { teamId: 'team', viewId: 'view' },
    query: executeViewQuery,
    success: { status: 200, data: z.array(viewRowSchema), shape: 'envelope', pagination: 'top' },
    errors: ['parameter_invalid', 'resource_not_found'],
  },
});
