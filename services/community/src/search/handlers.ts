import { COMMUNITY_SEARCH_INTERNAL, SORT_FIELD_COLUMNS } from '@helpdesk/contracts';
import { handlersFor, viewSortOf } from '@helpdesk/kit';
import type { CommunityRules } from '../rules';

/** The community service's part of saved views (docs/adr/0035): its post list in a view's order, asked by dataops. */
export const postSearchHandlers = ({ posts }: CommunityRules) =>
  handlersFor(COMMUNITY_SEARCH_INTERNAL)({
    listPostsForView: ({ ctx, query }) => posts.list(ctx, query, viewSortOf(query, SORT_FIELD_COLUMNS)),
  });
