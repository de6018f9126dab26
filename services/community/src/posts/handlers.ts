import { COMMUNITY } from '@helpdesk/contracts';
import { handlersFor } from '@helpdesk/kit';
import type { CommunityRules } from '../rules';

/** `/teams/{teamId}/community/posts…`: publishable keys read public posts; writes need a secret key with `manage_community`. */
export const postHandlers = ({ posts, authors }: CommunityRules) =>
  handlersFor(COMMUNITY)({
    listCommunityPosts: ({ ctx, query }) => posts.list(ctx, query),
    createCommunityPost: async ({ ctx, body, token }) => posts.create(ctx, body, await authors.of(ctx, token, body.customerId)),
    getCommunityPost: ({ ctx, params }) => posts.get(ctx, params.postId),
    updateCommunityPost: ({ ctx, params, body }) => posts.update(ctx, params.postId, body),
    deleteCommunityPost: ({ ctx, params }) => posts.remove(ctx, params.postId),
  });
