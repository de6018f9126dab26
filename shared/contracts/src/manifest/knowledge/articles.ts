import { z } from 'zod';
import { ARTICLE_STATUSES, articleSnapshotSchema } from '../../catalog/knowledge';
import { freeFormObject, metadataSchema, nameField, paginationFields, queryBool, SEARCH_MAX, tagsField } from '../../fields';
import { defineOperations, deletedSchema } from '../operation';

/** Articles and their published revisions (docs/adr/0015). */

export const ARTICLE_TITLE_MAX = 255;
export const ARTICLE_CONTENT_MAX = 100_000;
const uuid = () => z.uuid({ message: 'must be a category UUID' });
const titleField = nameField(ARTICLE_TITLE_MAX);
const contentField = z.string().max(ARTICLE_CONTENT_MAX).meta({ description: 'Markdown.' });
const statusField = z.enum(ARTICLE_STATUSES);

export const createArticleBody = z.strictObject({
  title: titleField,
  content: contentField.optional(),
  categoryId: uuid().nullable().optional(),
  status: statusField.optional(),
  isPublic: z.boolean().optional(),
  tags: tagsField.optional(),
  metadata: metadataSchema.optional(),
  /** `{fieldId: value}`: checked against the team's definitions (docs/adr/0022). */
  customFields: freeFormObject().optional(),
});
export type CreateArticleInput = z.output<typeof createArticleBody>;

export const updateArticleBody = z.strictObject({
  title: titleField.optional(),
  content: contentField.optional(),
  categoryId: uuid().nullable().optional(),
  status: statusField.optional(),
  isPublic: z.boolean().optional(),
  tags: tagsField.optional(),
  // The 50-key limit applies to the merged result.
  metadata: freeFormObject(null).optional(),
  /** Merged into the stored values; null removes one (docs/adr/0022). */
  customFields: freeFormObject().optional(),
});
export type UpdateArticleInput = z.output<typeof updateArticleBody>;

export const listArticlesQuery = z.strictObject({
  category: uuid().optional(),
  status: statusField.optional(),
  isPublic: queryBool().optional(),
  search: z.string().max(SEARCH_MAX).optional(),
  ...paginationFields(20, 100),
});
export type ListArticlesQuery = z.output<typeof listArticlesQuery>;

/** The spec's Article; `metadata` is staff-only: absent from publishable keys' answers. */
/** Why an article is not shown publicly (an article's `hiddenBecause`). */
export const ARTICLE_HIDDEN_REASONS = ['draft', 'not_public', 'category_private', 'help_center_off'] as const;
export type ArticleHiddenReason = (typeof ARTICLE_HIDDEN_REASONS)[number];

export const articleSchema = articleSnapshotSchema
  .pick({ id: true, title: true, content: true, categoryId: true, status: true, isPublic: true, tags: true, viewCount: true, useCount: true, createdAt: true, updatedAt: true })
  // Staff-only, absent from publishable keys' answers; customFields per docs/adr/0022.
  .extend({ metadata: articleSnapshotSchema.shape.metadata.optional(), customFields: z.record(z.string(), z.unknown()).optional() })
  // Its effective public visibility, on every read and write of an article (not in exports).
  .extend({
    publiclyVisible: z
      .boolean()
      .optional()
      .describe(
        'Whether publishable keys (a site, the chat widget) can read it: published, `isPublic`, and in no category or a public one. ' +
          'Categories are private until made public.',
      ),
    helpCenterVisible: z
      .boolean()
      .optional()
      .describe("Whether the help center shows it: `publiclyVisible`, and this partition's help center is on (`GET /help-center`)."),
    hiddenBecause: z
      .array(z.enum(ARTICLE_HIDDEN_REASONS))
      .optional()
      .describe(
        'Every reason it is not shown, empty when the help center shows it: `draft` (publish it: `status: published`), `not_public` ' +
          '(`isPublic` is false), `category_private` (its category\'s `isPublic` is false: categories are private by default), ' +
          '`help_center_off` (this partition\'s help center is off; publishable keys still read the article).',
      ),
  })
  .meta({ id: 'Article' });
export type ArticleView = z.output<typeof articleSchema>;

export const articleRevisionSchema = z
  .object({
    object: z.literal('article_revision'),
    articleId: z.string(),
    /** 1 for the first publication, then +1 per kept revision. */
    revision: z.number().int(),
    title: z.string(),
    content: z.string(),
    categoryId: z.string().nullable(),
    isPublic: z.boolean(),
    tags: z.array(z.string()),
    publishedAt: z.string().datetime(),
    publishedBy: z.object({ type: z.enum(['key', 'member', 'system']), id: z.string().nullable() }),
  })
  .meta({ id: 'ArticleRevision' });
export type ArticleRevisionView = z.output<typeof articleRevisionSchema>;

export const listRevisionsQuery = z.strictObject({ ...paginationFields(20, 100) });

const articles = { service: 'knowledge', tag: 'Articles' } as const;
const articleParams = { teamId: 'team', articleId: 'article' } as const;
export const KNOWLEDGE_WRITE_ERRORS = ['parameter_missing', 'parameter_invalid', 'invalid_json', 'idempotency_key_in_use'] as const;
const PUBLIC_READ =
  'Publishable keys read the public knowledge base only: published articles with `isPublic` true whose category, when they ' +
  'have one, is public (categories are private until `isPublic: true`); anything else is 404 for them, and `metadata` is left ' +
  'out. Each article says whether it is public and why not: `publiclyVisible`, `helpCenterVisible`, `hiddenBecause`.';

export const ARTICLES = defineOperations({
  listArticles: {
    ...articles,
    keys: 'public',
    method: 'GET',
    path: '/teams/{teamId}/articles',
    summary: 'List articles',
    description:
      'Newest first. `category` is a category UUID; `search` is a case-insensitive substring of the title or the content. ' +
      `${PUBLIC_READ} Publishable-key reads of a list do not count as views.`,
    permission: 'view_articles',
    params: { teamId: 'team' },
    query: listArticlesQuery,
    success: { status: 200, data: z.array(articleSchema), shape: 'envelope', pagination: 'meta' },
    errors: ['parameter_invalid'],
  },
  createArticle: {
    ...articles,
    keys: 'staff',
    method: 'POST',
    path: '/teams/{teamId}/articles',
    summary: 'Create an article',
    description:
      '`status` defaults to `draft`, `isPublic` to false. `categoryId` must be a category of the team and partition (400 ' +
      'parameter_invalid, param categoryId). Created `published`, it keeps revision 1 and emits `article.published` after ' +
      '`article.created`. `customFields` (`{fieldId: value}`) is checked against the team\'s article custom fields (400 ' +
      'parameter_invalid, param `customFields.<fieldId>`; docs/adr/0022); like `metadata`, publishable keys do not see it.',
    permission: 'manage_articles',
    params: { teamId: 'team' },
    body: createArticleBody,
    success: { status: 201, data: articleSchema, shape: 'envelope' },
    errors: [...KNOWLEDGE_WRITE_ERRORS],
  },
  getArticle: {
    ...articles,
    keys: 'public',
    method: 'GET',
    path: '/teams/{teamId}/articles/{articleId}',
    summary: 'Retrieve an article',
    description: `With its full Markdown content. ${PUBLIC_READ} A publishable-key read counts one view (\`viewCount\`); staff reads do not.`,
    permission: 'view_articles',
    params: articleParams,
    success: { status: 200, data: articleSchema, shape: 'envelope' },
    errors: ['parameter_invalid', 'resource_not_found'],
  },
  updateArticle: {
    ...articles,
    keys: 'staff',
    method: 'PATCH',
    path: '/teams/{teamId}/articles/{articleId}',
    summary: 'Update an article',
    description:
      'Only given fields change. `status` is `draft` or `published`. `tags` replace; `metadata` is merged (null removes a key; at ' +
      'most 50 keys after merging). A move to `published`, or a title or content change while published, keeps a new revision ' +
      'and emits `article.published`; any change emits `article.updated`.',
    permission: 'manage_articles',
    params: articleParams,
    body: updateArticleBody,
    success: { status: 200, data: articleSchema, shape: 'envelope' },
    errors: [...KNOWLEDGE_WRITE_ERRORS, 'resource_not_found'],
  },
  deleteArticle: {
    ...articles,
    keys: 'staff',
    method: 'DELETE',
    path: '/teams/{teamId}/articles/{articleId}',
    summary: 'Delete an article',
    description: 'Its revisions go with it. Answers `{id, deleted: true}`.',
    permission: 'manage_articles',
    params: articleParams,
    success: { status: 200, data: deletedSchema, shape: 'envelope' },
    errors: ['resource_not_found'],
  },
  listArticleRevisions: {
    ...articles,
    keys: 'staff',
    method: 'GET',
    path: '/teams/{teamId}/articles/{articleId}/revisions',
    summary: 'List an article\'s published revisions',
    description:
      'Not shown by the spec (docs/adr/0015): every published version of the article, newest first. A revision is kept when the ' +
      'article is created published, moves to published, or has its title or content changed while published.',
    permission: 'view_articles',
    params: articleParams,
    query: listRevisionsQuery,
    success: { status: 200, data: z.array(articleRevisionSchema), shape: 'envelope', pagination: 'meta' },
    errors: ['parameter_invalid', 'resource_not_found'],
  },

});

/** What search, tags, export and the AI actions read articles through. */
export const ARTICLES_INTERNAL = defineOperations({
  getArticleSnapshot: {
    ...articles,
    keys: 'staff',
    internal: true,
    method: 'GET',
    path: '/internal/articles/{articleId}',
    summary: 'An article as events carry it (with rev)',
    permission: null,
    params: { articleId: 'article' },
    success: { status: 200, data: articleSnapshotSchema, shape: 'envelope' },
    errors: ['resource_not_found'],
  },
});
