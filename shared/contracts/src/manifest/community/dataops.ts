import { defineOperations } from '../operation';
import { sortedQuery, VIEW_SORT_FIELDS, viewListOperation } from '../dataops/search';
import { communityPostSchema, listPostsQuery } from './posts';

/** What dataops asks the community service: saved-view lists of posts. */
export const listPostsForViewQuery = listPostsQuery.extend(sortedQuery(VIEW_SORT_FIELDS.community_posts));
export const COMMUNITY_SEARCH_INTERNAL = defineOperations({
  listPostsForView: viewListOperation('community', 'community_posts', listPostsForViewQuery, communityPostSchema),
});
