import { z } from 'zod';
import { ARTICLE_STATUSES, articleSnapshotSchema, categorySnapshotSchema } from '../../catalog/knowledge';
import { freeFormObject, metadataSchema, nameField, paginationFields, queryBool, SEARCH_MAX, tagsField } from '../../fields';
import { defineOperations, deletedSchema } from '../operation';

/**
 * The knowledge service's public and internal operations: articles, their published revisions,
 * categories, and the switch of the public help center (docs/adr/0015-knowledge.md, 0016-help-center.md).
 */

export const ARTICLE_TITLE_MAX = 255;
export const ARTICLE_CONTENT_MAX = 100_000;
export const CATEGORY_NAME_MAX = 100;
export const CATEGORY_SLUG_MAX = 100;
export const CATEGORY_DESCRIPTION_MAX = 2_000;
export const SORT_ORDER_MAX = 1_000_000;
export const DEFAULT_CATEGORY_ICON = 'folder';
export const DEFAULT_CATEGORY_COLOR = '#6b7280';

const uuid = () => z.uuid({ message: 'must be a category UUID' });

// ---------- articles ----------

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

// ---------- categories ----------

/** `#rrggbb` or `#rgb`, either case; stored lowercase as `#rrggbb`. */
const colorField = z
  .string()
  .regex(/^#(?:[0-9a-fA-F]{6}|[0-9a-fA-F]{3})$/, { message: 'must be a hex color #rrggbb or #rgb' })
  .transform((c) => (c.length === 4 ? `#${c[1]}${c[1]}${c[2]}${c[2]}${c[3]}${c[3]}` : c).toLowerCase());
const iconField = z
  .string()
  .min(1)
  .max(100)
  .meta({ description: 'A Lucide icon name (lucide-static 1.62.0), e.g. `rocket`, `credit-card`; any other name is 400 parameter_invalid.' });
const descriptionField = z.string().max(CATEGORY_DESCRIPTION_MAX).nullable();
const sortOrderField = z.number().int().min(-SORT_ORDER_MAX).max(SORT_ORDER_MAX);

export const createCategoryBody = z.strictObject({
  name: nameField(CATEGORY_NAME_MAX),
  description: descriptionField.optional(),
  icon: iconField.optional(),
  color: colorField.optional(),
  sortOrder: sortOrderField.optional(),
  isPublic: z.boolean().optional(),
});
export type CreateCategoryInput = z.output<typeof createCategoryBody>;

export const updateCategoryBody = z.strictObject({
  name: nameField(CATEGORY_NAME_MAX).optional(),
  description: descriptionField.optional(),
  icon: iconField.optional(),
  color: colorField.optional(),
  sortOrder: sortOrderField.optional(),
  isPublic: z.boolean().optional(),
});
export type UpdateCategoryInput = z.output<typeof updateCategoryBody>;

export const listCategoriesQuery = z.strictObject({ isPublic: queryBool().optional(), ...paginationFields(20, 100) });
export type ListCategoriesQuery = z.output<typeof listCategoriesQuery>;

export const categorySchema = categorySnapshotSchema.meta({ id: 'Category' });
export type CategoryView = z.output<typeof categorySchema>;

// ---------- help center ----------

export const HELP_CENTER_TITLE_MAX = 100;

export const helpCenterSchema = z
  .object({
    object: z.literal('help_center'),
    /** Off by default: nothing is served at `/help/{teamSlug}` until a team turns it on. */
    enabled: z.boolean(),
    /** The page heading; null shows "Help center". */
    title: z.string().nullable(),
    updatedAt: z.string().datetime().nullable(),
    teamSlug: z.string().nullable().describe("The team's slug, which the addresses are made of (null while the platform has not learned it)."),
    url: z
      .string()
      .nullable()
      .describe(
        "Where this partition's help center is served, on the platform's own address (npm start: `http://127.0.0.1:8080`): " +
          '`/help/{teamSlug}` for the live partition, `/help/{teamSlug}?mode=test` for the test partition. It answers 404 while `enabled` is false.',
      ),
    urls: z
      .object({ live: z.string(), test: z.string() })
      .nullable()
      .describe("Both partitions' addresses (each partition has its own switch: see each one's `enabled` with a key of that partition)."),
  })
  .meta({ id: 'HelpCenter' });
export type HelpCenterView = z.output<typeof helpCenterSchema>;

export const updateHelpCenterBody = z.strictObject({
  enabled: z.boolean().optional(),
  title: nameField(HELP_CENTER_TITLE_MAX).nullable().optional(),
});
export type UpdateHelpCenterInput = z.output<typeof updateHelpCenterBody>;

/** What the gateway asks to render one help-center page (`/help/{teamSlug}…`). */
export const helpCenterPageQuery = z.strictObject({
  /** The public path the page's links start with, e.g. `/help/acme`. */
  base: z.string().regex(/^\/help\/[a-z0-9-]{1,100}$/),
  /** `/help/{teamSlug}/articles/{article}`: `art_…` optionally followed by `-` and a slug of its title. */
  article: z.string().min(1).max(300).optional(),
  search: z.string().max(SEARCH_MAX).optional(),
  /** false for a HEAD request: the page is built but no view is counted. */
  countView: queryBool().optional(),
});
export type HelpCenterPageQuery = z.output<typeof helpCenterPageQuery>;

export const helpCenterPageSchema = z.object({
  /** The HTTP status the page is served with (404: help center off, unknown or non-public article). */
  status: z.union([z.literal(200), z.literal(404)]),
  title: z.string(),
  /** A complete, sanitised HTML document without any script. */
  html: z.string(),
});

// ---------- operations ----------

const articles = { service: 'knowledge', tag: 'Articles' } as const;
const categories = { service: 'knowledge', tag: 'Categories' } as const;
const articleParams = { teamId: 'team', articleId: 'article' } as const;
const categoryParams = { teamId: 'team', categoryId: 'uuid' } as const;
const WRITE_ERRORS = ['parameter_missing', 'parameter_invalid', 'invalid_json', 'idempotency_key_in_use'] as const;
const PUBLIC_READ =
  'Publishable keys read the public knowledge base only: published articles with `isPublic` true whose category, when they ' +
  'have one, is public (categories are private until `isPublic: true`); anything else is 404 for them, and `metadata` is left ' +
  'out. Each article says whether it is public and why not: `publiclyVisible`, `helpCenterVisible`, `hiddenBecause`.';

export const KNOWLEDGE = defineOperations({
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
    errors: [...WRITE_ERRORS],
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
    errors: [...WRITE_ERRORS, 'resource_not_found'],
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

  listCategories: {
    ...categories,
    keys: 'public',
    method: 'GET',
    path: '/teams/{teamId}/categories',
    summary: 'List categories',
    description: 'Ordered by `sortOrder`, then `name`. Publishable keys see public categories only.',
    permission: 'view_articles',
    params: { teamId: 'team' },
    query: listCategoriesQuery,
    success: { status: 200, data: z.array(categorySchema), shape: 'envelope', pagination: 'meta' },
    errors: ['parameter_invalid'],
  },
  createCategory: {
    ...categories,
    keys: 'staff',
    method: 'POST',
    path: '/teams/{teamId}/categories',
    summary: 'Create a category',
    description:
      'The slug is generated from the name (slugify, lowercase, strict) and is unique per team and partition: a taken slug is 409 ' +
      `resource_conflict (param name). \`icon\` is a Lucide icon name (default \`${DEFAULT_CATEGORY_ICON}\`), \`color\` a hex colour ` +
      `(default \`${DEFAULT_CATEGORY_COLOR}\`), \`sortOrder\` defaults to 0, \`isPublic\` to false.`,
    permission: 'manage_articles',
    params: { teamId: 'team' },
    body: createCategoryBody,
    success: { status: 201, data: categorySchema, shape: 'envelope' },
    errors: [...WRITE_ERRORS, 'resource_conflict'],
  },
  getCategory: {
    ...categories,
    keys: 'public',
    method: 'GET',
    path: '/teams/{teamId}/categories/{categoryId}',
    summary: 'Retrieve a category',
    description: 'Not shown by the spec; added for symmetry. A private category is 404 for publishable keys.',
    permission: 'view_articles',
    params: categoryParams,
    success: { status: 200, data: categorySchema, shape: 'envelope' },
    errors: ['parameter_invalid', 'resource_not_found'],
  },
  updateCategory: {
    ...categories,
    keys: 'staff',
    method: 'PATCH',
    path: '/teams/{teamId}/categories/{categoryId}',
    summary: 'Update a category',
    description: 'Only given fields change. A rename regenerates the slug; a slug taken by another category is 409 (param name).',
    permission: 'manage_articles',
    params: categoryParams,
    body: updateCategoryBody,
    success: { status: 200, data: categorySchema, shape: 'envelope' },
    errors: [...WRITE_ERRORS, 'resource_not_found', 'resource_conflict'],
  },
  deleteCategory: {
    ...categories,
    keys: 'staff',
    method: 'DELETE',
    path: '/teams/{teamId}/categories/{categoryId}',
    summary: 'Delete a category',
    description:
      'Its articles become uncategorized in the same transaction; each emits `article.updated` (changes `categoryId`). ' +
      'Answers `{id, deleted: true}`.',
    permission: 'manage_articles',
    params: categoryParams,
    success: { status: 200, data: deletedSchema, shape: 'envelope' },
    errors: ['resource_not_found'],
  },

  getHelpCenter: {
    service: 'knowledge',
    tag: 'Help center',
    keys: 'staff',
    method: 'GET',
    path: '/teams/{teamId}/help-center',
    summary: 'The public help center\'s settings',
    description:
      'Not shown by the spec (docs/adr/0016): whether `/help/{teamSlug}` serves this partition\'s public knowledge base without ' +
      'a key. Off until turned on. The live partition is served at `/help/{teamSlug}`, the test partition at ' +
      '`/help/{teamSlug}?mode=test`, each by its own switch: `url` is the key\'s partition\'s, `urls` both. What it shows: ' +
      'published articles with `isPublic` true in no category or a public one (categories are private until `isPublic: true`); ' +
      'each article\'s `helpCenterVisible` and `hiddenBecause` say whether it shows and why not.',
    permission: 'view_articles',
    params: { teamId: 'team' },
    success: { status: 200, data: helpCenterSchema, shape: 'envelope' },
    errors: [],
  },
  updateHelpCenter: {
    service: 'knowledge',
    tag: 'Help center',
    keys: 'staff',
    method: 'PATCH',
    path: '/teams/{teamId}/help-center',
    summary: 'Turn the public help center on or off',
    description:
      '`enabled` turns it on or off for the key\'s partition (a test key: the test partition\'s, served at `url`, ' +
      '`/help/{teamSlug}?mode=test`); `title` is the page heading (null: "Help center").',
    permission: 'manage_articles',
    params: { teamId: 'team' },
    body: updateHelpCenterBody,
    success: { status: 200, data: helpCenterSchema, shape: 'envelope' },
    errors: [...WRITE_ERRORS],
  },
});

/**
 * The knowledge service's internal operations: what search, tags, export and the AI actions read
 * articles through, and the help-center pages the gateway serves at `/help/{teamSlug}`.
 */
export const KNOWLEDGE_INTERNAL = defineOperations({
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
  renderHelpCenterPage: {
    service: 'knowledge',
    tag: 'Help center',
    keys: 'public',
    internal: true,
    method: 'GET',
    path: '/internal/help-center/page',
    summary: 'One help-center page as sanitised HTML (home, search results or an article)',
    permission: 'view_articles',
    params: {},
    query: helpCenterPageQuery,
    success: { status: 200, data: helpCenterPageSchema, shape: 'envelope' },
    errors: ['parameter_invalid'],
  },
});
