import { z } from 'zod';
import { savedViewSnapshotSchema, SORT_DIRECTIONS, VIEW_ENTITY_TYPES } from '../../catalog/workspace';
import { freeFormObject, nameField } from '../../fields';
import { defineOperations, deletedSchema } from '../operation';
import { VIEW_FILTERS, VIEW_SORT_FIELDS } from '../dataops/search';

/**
 * Saved views, owned by the workspace service (docs/adr/0035). A view names an entity's list, its
 * filters (exactly that list's filters) and an order; `GET /views/{viewId}/execute` (dataops) runs it.
 */

export const VIEW_NAME_MAX = 100;
const filterNames = (entity: keyof typeof VIEW_FILTERS) => Object.keys(VIEW_FILTERS[entity].shape).map((k) => `\`${k}\``).join(', ');
const FILTERS_DOC = VIEW_ENTITY_TYPES.map((e) => `${e}: ${filterNames(e)}`).join('; ');
const SORTS_DOC = VIEW_ENTITY_TYPES.map((e) => `${e}: ${VIEW_SORT_FIELDS[e].map((f) => `\`${f}\``).join(', ')}`).join('; ');

export const savedViewSchema = savedViewSnapshotSchema.meta({ id: 'SavedView' });
export const listViewsQuery = z.strictObject({ entityType: z.enum(VIEW_ENTITY_TYPES).optional() });
export const createViewBody = z.strictObject({
  name: nameField(VIEW_NAME_MAX),
  entityType: z.enum(VIEW_ENTITY_TYPES),
  filters: freeFormObject().optional(),
  sortField: z.string().min(1).max(40).optional(),
  sortDirection: z.enum(SORT_DIRECTIONS).optional(),
  visibility: z.enum(['private', 'team']).optional(),
});
export type CreateViewInput = z.output<typeof createViewBody>;
/** The entity of a view is fixed: a view of another entity is a new view. */
export const updateViewBody = createViewBody.omit({ entityType: true }).partial();
export type UpdateViewInput = z.output<typeof updateViewBody>;

const views = { service: 'workspace', tag: 'Saved views', keys: 'staff' } as const;
const VISIBLE =
  'A `team` view is visible to every key of the team in the same partition; a `private` one only to its creator (the member, or the ' +
  'key when it has no member): to anyone else it does not exist (404).';

export const VIEWS = defineOperations({
  listViews: {
    ...views,
    method: 'GET',
    path: '/teams/{teamId}/views',
    summary: 'List saved views',
    description: `The views the key can see, newest first, optionally of one \`entityType\`. ${VISIBLE}`,
    permission: null,
    params: { teamId: 'team' },
    query: listViewsQuery,
    success: { status: 200, data: z.array(savedViewSchema), shape: 'envelope' },
    errors: ['parameter_invalid'],
  },
  createView: {
    ...views,
    method: 'POST',
    path: '/teams/{teamId}/views',
    summary: 'Save a view',
    description:
      `\`name\` and \`entityType\` (\`tickets\`, \`customers\`, \`articles\`, \`community_posts\`) are required. \`filters\` are that ` +
      `entity's list filters, validated as the list validates them (an unknown filter or a bad value is 400 naming \`filters.<name>\`): ${FILTERS_DOC}. ` +
      `\`sortField\` (default \`created_at\`): ${SORTS_DOC}. \`sortDirection\` \`asc\` or \`desc\` (default), \`visibility\` \`team\` (default) ` +
      `or \`private\`. Emits \`saved_view.created\`.`,
    permission: null,
    params: { teamId: 'team' },
    body: createViewBody,
    success: { status: 201, data: savedViewSchema, shape: 'envelope' },
    errors: ['parameter_missing', 'parameter_invalid'],
  },
  getView: {
    ...views,
    method: 'GET',
    path: '/teams/{teamId}/views/{viewId}',
    summary: 'Get a saved view',
    description: VISIBLE,
    permission: null,
    params: { teamId: 'team', viewId: 'view' },
    success: { status: 200, data: savedViewSchema, shape: 'envelope' },
    errors: ['resource_not_found'],
  },
  updateView: {
    ...views,
    method: 'PATCH',
    path: '/teams/{teamId}/views/{viewId}',
    summary: 'Change a saved view',
    description:
      'Any of `name`, `filters` (replaced, validated against the view\'s entity), `sortField`, `sortDirection`, `visibility`; the ' +
      '`entityType` is fixed. Only its creator may change a private view; anyone who sees a team view may. Emits `saved_view.updated`.',
    permission: null,
    params: { teamId: 'team', viewId: 'view' },
    body: updateViewBody,
    success: { status: 200, data: savedViewSchema, shape: 'envelope' },
    errors: ['parameter_invalid', 'resource_not_found'],
  },
  deleteView: {
    ...views,
    method: 'DELETE',
    path: '/teams/{teamId}/views/{viewId}',
    summary: 'Delete a saved view',
    description: 'Emits `saved_view.deleted`.',
    permission: null,
    params: { teamId: 'team', viewId: 'view' },
    success: { status: 200, data: deletedSchema, shape: 'envelope' },
    errors: ['resource_not_found'],
  },
});

export const VIEWS_INTERNAL = defineOperations({
  getViewInternal: {
    ...views,
    internal: true,
    method: 'GET',
    path: '/internal/views/{viewId}',
    summary: 'A saved view the caller can see (dataops runs it)',
    permission: null,
    params: { viewId: 'view' },
    success: { status: 200, data: savedViewSnapshotSchema, shape: 'envelope' },
    errors: ['resource_not_found'],
  },
});
