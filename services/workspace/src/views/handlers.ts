import { VIEWS, VIEWS_INTERNAL } from '@helpdesk/contracts';
import { handlersFor } from '@helpdesk/kit';
import type { WorkspaceRules } from '../rules';

/** `/teams/{teamId}/views…` (docs/adr/0035); running one is dataops' `…/execute`, which asks `getViewInternal`. */
export const savedViewHandlers = ({ savedViews }: WorkspaceRules) => ({
  ...handlersFor(VIEWS)({
    listViews: ({ ctx, query }) => savedViews.list(ctx, query),
    createView: ({ ctx, body }) => savedViews.create(ctx, body),
    getView: ({ ctx, params }) => savedViews.get(ctx, params.viewId),
    updateView: ({ ctx, params, body }) => savedViews.update(ctx, params.viewId, body),
    deleteView: ({ ctx, params }) => savedViews.remove(ctx, params.viewId),
  }),
  ...handlersFor(VIEWS_INTERNAL)({
    getViewInternal: ({ ctx, params }) => savedViews.get(ctx, params.viewId),
  }),
});
