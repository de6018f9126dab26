import { z } from 'zod';
import { communityCommentSnapshotSchema } from '../../catalog/community';
import { paginationFields } from '../../fields';
import { defineOperations } from '../operation';
import { ATTACHMENTS, AUTHOR, comments, COMMUNITY_LIMITS, customerIdField, postParams, PUBLIC_READ, WRITE_ERRORS } from './common';
import { attachmentRef } from './posts';

/** Comments on community posts (docs/adr/0017). */


export const createCommentBody = z.strictObject({
  body: z.string().trim().min(1).max(COMMUNITY_LIMITS.commentMax),
  attachments: z.array(attachmentRef).max(COMMUNITY_LIMITS.attachmentsPerComment).optional(),
  customerId: customerIdField.optional(),
});
export type CreateCommentInput = z.output<typeof createCommentBody>;

export const updateCommentBody = z.strictObject({ is_official_answer: z.boolean() });
export type UpdateCommentInput = z.output<typeof updateCommentBody>;

export const listCommentsQuery = z.strictObject({ ...paginationFields(20, 100) });

export const communityCommentSchema = communityCommentSnapshotSchema.meta({ id: 'CommunityComment' });

export const COMMUNITY_COMMENTS = defineOperations({
  listCommunityComments: {
    ...comments,
    keys: 'public',
    method: 'GET',
    path: '/teams/{teamId}/community/posts/{postId}/comments',
    summary: 'List a post\'s comments',
    description: `Oldest first; pagination top-level. ${PUBLIC_READ}`,
    permission: 'view_community',
    params: postParams,
    query: listCommentsQuery,
    success: { status: 200, data: z.array(communityCommentSchema), shape: 'envelope', pagination: 'top' },
    errors: ['parameter_invalid', 'resource_not_found'],
  },
  createCommunityComment: {
    ...comments,
    keys: 'staff',
    method: 'POST',
    path: '/teams/{teamId}/community/posts/{postId}/comments',
    summary: 'Comment on a post',
    description:
      `Refused with 409 \`resource_conflict\` (param is_locked) while the post \`is_locked\`. At most 5 attachments. \`comment_count\` ` +
      `counts it. ${AUTHOR} ${ATTACHMENTS}`,
    permission: 'manage_community',
    params: postParams,
    body: createCommentBody,
    success: { status: 201, data: communityCommentSchema, shape: 'envelope' },
    errors: [...WRITE_ERRORS, 'resource_not_found', 'resource_conflict'],
  },
  updateCommunityComment: {
    ...comments,
    keys: 'staff',
    method: 'PATCH',
    path: '/teams/{teamId}/community/posts/{postId}/comments/{commentId}',
    summary: 'Mark or unmark a comment as the official answer',
    description:
      'Only a staff comment (author `member` or `key`) can be the official answer (400 param is_official_answer otherwise). Marking ' +
      'one sets the post `officially_answered` and unmarks any earlier one; unmarking the official answer sets the post back to `open`.',
    permission: 'manage_community',
    params: { teamId: 'team', postId: 'uuid', commentId: 'uuid' },
    body: updateCommentBody,
    success: { status: 200, data: communityCommentSchema, shape: 'envelope' },
    errors: [...WRITE_ERRORS, 'resource_not_found'],
  },

});
