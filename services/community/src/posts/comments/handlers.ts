import { COMMUNITY } from '@helpdesk/contracts';
import { handlersFor } from '@helpdesk/kit';
import type { CommunityRules } from '../../rules';

/** `/teams/{teamId}/community/posts/{postId}/comments…` */
export const commentHandlers = ({ comments, authors }: CommunityRules) =>
  handlersFor(COMMUNITY)({
    listCommunityComments: ({ ctx, params, query }) => comments.list(ctx, params.postId, query),
    createCommunityComment: async ({ ctx, params, body, token }) =>
      comments.create(ctx, params.postId, body, await authors.of(ctx, token, body.customerId)),
    updateCommunityComment: ({ ctx, params, body }) => comments.update(ctx, params.postId, params.commentId, body),
  });
