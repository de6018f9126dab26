import { COMMUNITY } from '@helpdesk/contracts';
import { handlersFor } from '@helpdesk/kit';
import type { CommunityRules } from '../../rules';

/** `/teams/{teamId}/community/posts/{postId}/votes`: the voter is the caller, or `customerId`'s customer. */
export const voteHandlers = ({ votes, authors }: CommunityRules) =>
  handlersFor(COMMUNITY)({
    addCommunityVote: async ({ ctx, params, body, token }) => votes.add(ctx, params.postId, await authors.of(ctx, token, body.customerId)),
    removeCommunityVote: async ({ ctx, params, query, token }) => votes.remove(ctx, params.postId, await authors.of(ctx, token, query.customerId)),
  });
