import { DATAOPS, VIEW_FILTERS, type SavedViewSnapshot } from '@helpdesk/contracts';
import { handlersFor, notFound } from '@helpdesk/kit';
import { requirePermissions, VIEW_PERMISSION } from '../access';
import type { DataopsRules } from '../rules';

/** The view's filters, order and the page as the entity list's query string carries them (`true`, `open`…). */
function listQueryOf(view: SavedViewSnapshot, page: { page: number; pageSize: number }): Record<string, string> {
  const known = new Set(Object.keys(VIEW_FILTERS[view.entityType].shape));
  const filters = Object.entries(view.filters).filter(([k, v]) => known.has(k) && v !== null && v !== undefined);
  return {
    ...Object.fromEntries(filters.map(([k, v]) => [k, String(v)])),
    sortField: view.sortField,
    sortDirection: view.sortDirection,
    page: String(page.page),
    pageSize: String(page.pageSize),
  };
}

/**
 * `GET /views/{viewId}/execute` (docs/adr/0035): the view from workspace (which applies its
 * visibility), then the entity's own list from its owning service, filtered and sorted as the view says.
 */
export const viewHandlers = ({ owners }: DataopsRules) =>
  handlersFor(DATAOPS)({
    executeView: async ({ ctx, params, query, token }) => {
      const view = await owners.workspace.forRequest(token, ctx.requestId).call('getViewInternal', { params: { viewId: params.viewId } });
      if (!view) throw notFound('saved view', params.viewId);
      requirePermissions(ctx, [VIEW_PERMISSION[view.entityType]]);
      const input = { query: listQueryOf(view, query) };
      const page =
        view.entityType === 'tickets'
          ? await owners.ticketing.forRequest(token, ctx.requestId).call('listTicketsForView', input)
          : view.entityType === 'customers'
            ? await owners.customers.forRequest(token, ctx.requestId).call('listCustomersForView', input)
            : view.entityType === 'articles'
              ? await owners.knowledge.forRequest(token, ctx.requestId).call('listArticlesForView', input)
              : await owners.community.forRequest(token, ctx.requestId).call('listPostsForView', input);
      // A list always answers; null would be a 404 from a list, which only a missing route gives.
      if (!page) throw new Error(`the ${view.entityType} list answered 404`);
      return page;
    },
  });
