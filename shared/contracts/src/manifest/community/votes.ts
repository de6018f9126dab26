import { z } from 'zod';
import { communityPostSnapshotSchema } from '../../catalog/community';
import { defineOperations } from '../operation';
import { customerIdField, postParams, uuidField, votes, WRITE_ERRORS } from './common';

/** Votes on community posts (docs/adr/0017). */


export const addVoteBody = z.strictObject({ customerId: customerIdField.optional() });
export const removeVoteQuery = z.strictObject({ customerId: customerIdField.optional() });
export const voteSchema = z
  .object({ post_id: uuidField, voter: communityPostSnapshotSchema.shape.author, voted: z.boolean(), vote_count: z.number().int() })
  .meta({ id: 'CommunityVote' });

export const COMMUNITY_VOTES = defineOperations({
  addCommunityVote: {
    ...votes,
    keys: 'staff',
    method: 'POST',
    path: '/teams/{teamId}/community/posts/{postId}/votes',
    summary: 'Vote for a post',
    description:
      'One vote per voter per post: the member (or key) behind the request, or with `customerId` that customer. Voting again ' +
      'changes nothing and answers the same 200 (no event). `vote_count` is the post\'s exact count after the request.',
    permission: 'manage_community',
    params: postParams,
    body: addVoteBody,
    success: { status: 200, data: voteSchema, shape: 'envelope' },
    errors: [...WRITE_ERRORS, 'resource_not_found'],
  },
  removeCommunityVote: {
    ...votes,
    keys: 'staff',
    method: 'DELETE',
    path: '/teams/{teamId}/community/posts/{postId}/votes',
    summary: 'Withdraw a vote',
    description: 'The voter as for voting (`customerId` in the query for a customer). Without a vote it changes nothing and answers 200 (no event).',
    permission: 'manage_community',
    params: postParams,
    query: removeVoteQuery,
    success: { status: 200, data: voteSchema, shape: 'envelope' },
    errors: ['parameter_invalid', 'resource_not_found'],
  },

});
