import { z } from 'zod';
import { categorySnapshotSchema } from '../../catalog/knowledge';
import { nameField, paginationFields, queryBool } from '../../fields';
import { defineOperations, deletedSchema } from '../operation';
import { KNOWLEDGE_WRITE_ERRORS } from './articles';

/** Article categories (docs/adr/0015). */

export const CATEGORY_NAME_MAX = 100;
export const CATEGORY_SLUG_MAX = 100;
export const CATEGORY_DESCRIPTION_MAX = 2_000;
export const SORT_ORDER_MAX = 1_000_000;
export const DEFAULT_CATEGORY_ICON = 'folder';
export const DEFAULT_CATEGORY_COLOR = '#6b7280';
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

const categories = { service: 'knowledge', tag: 'Categories' } as const;
const categoryParams = { teamId: 'team', categoryId: 'uuid' } as const;

export const ARTICLE_CATEGORIES = defineOperations({
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
    errors: [...KNOWLEDGE_WRITE_ERRORS, 'resource_conflict'],
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
    errors: [...KNOWLEDGE_WRITE_ERRORS, 'resource_not_found', 'resource_conflict'],
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

});
