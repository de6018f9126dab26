import { z } from 'zod';
import { COMMUNITY_POST_STATUSES, COMMUNITY_VISIBILITIES, communityPostSnapshotSchema } from '../../catalog/community';
import { nameField, paginationFields } from '../../fields';
import { defineOperations, deletedSchema } from '../operation';
import { ATTACHMENTS, AUTHOR, COMMUNITY_LIMITS, customerIdField, postParams, posts, PUBLIC_READ, uuidField, WRITE_ERRORS } from './common';

/** Community posts (docs/adr/0017). */


/** A reference to an uploaded attachment: its `storage_path`; the other fields, when echoed, must match the upload. */
export const attachmentRef = z.strictObject({
  id: uuidField.optional(),
  filename: z.string().optional(),
  content_type: z.string().optional(),
  size_bytes: z.number().int().optional(),
  storage_path: z.string().min(1).max(500),
});
export type AttachmentRef = z.output<typeof attachmentRef>;

/** `{fieldId: value}`; on PATCH a null removes a value. Values are checked against the topic's configuration by the service. */
const customFieldsInput = z.record(z.string(), z.unknown());

export const createPostBody = z.strictObject({
  title: nameField(COMMUNITY_LIMITS.titleMax),
  topicId: uuidField,
  body: z.string().max(COMMUNITY_LIMITS.bodyMax).optional(),
  visibility: z.enum(COMMUNITY_VISIBILITIES).optional().default('public'),
  customFields: customFieldsInput.optional(),
  attachments: z.array(attachmentRef).max(COMMUNITY_LIMITS.attachmentsPerPost).optional(),
  /** A secret key posting for a customer of the team: the customer is the author. */
  customerId: customerIdField.optional(),
});
export type CreatePostInput = z.output<typeof createPostBody>;

export const updatePostBody = z.strictObject({
  title: nameField(COMMUNITY_LIMITS.titleMax).optional(),
  body: z.string().max(COMMUNITY_LIMITS.bodyMax).optional(),
  visibility: z.enum(COMMUNITY_VISIBILITIES).optional(),
  status: z.enum(COMMUNITY_POST_STATUSES).optional(),
  is_pinned: z.boolean().optional(),
  is_locked: z.boolean().optional(),
  customFields: customFieldsInput.optional(),
  attachments: z.array(attachmentRef).max(COMMUNITY_LIMITS.attachmentsPerPost).optional(),
});
export type UpdatePostInput = z.output<typeof updatePostBody>;

export const listPostsQuery = z.strictObject({
  topic: z.string().min(1).max(120).optional(),
  status: z.enum(COMMUNITY_POST_STATUSES).optional(),
  sort: z.enum(['recent', 'votes', 'comments']).optional().default('recent'),
  ...paginationFields(20, 100),
});
export type ListPostsQuery = z.output<typeof listPostsQuery>;

/** The public JSON of a post: `custom_fields` is internal and absent for publishable keys. */
export const communityPostSchema = communityPostSnapshotSchema
  .extend({ custom_fields: communityPostSnapshotSchema.shape.custom_fields.optional() })
  .meta({ id: 'CommunityPost' });

export const COMMUNITY_POSTS = defineOperations({
  listCommunityPosts: {
    ...posts,
    keys: 'public',
    method: 'GET',
    path: '/teams/{teamId}/community/posts',
    summary: 'List community posts',
    description:
      `Pinned posts first, then by \`sort\`: \`recent\` (newest), \`votes\` or \`comments\` (most first, then newest). \`topic\` is a ` +
      `topic slug (an unknown one lists nothing). Pagination top-level. ${PUBLIC_READ}`,
    permission: 'view_community',
    params: { teamId: 'team' },
    query: listPostsQuery,
    success: { status: 200, data: z.array(communityPostSchema), shape: 'envelope', pagination: 'top' },
    errors: ['parameter_invalid'],
  },
  createCommunityPost: {
    ...posts,
    keys: 'staff',
    method: 'POST',
    path: '/teams/{teamId}/community/posts',
    summary: 'Create a community post',
    description:
      'A new post is `open`, unpinned and unlocked. The topic must be one of the team and partition (404 otherwise). `customFields` ' +
      'may hold only the topic\'s fields (400 param `customFields.<fieldId>`), every required one present (400 parameter_missing) ' +
      'and each value of its type. The slug is generated from the title and unique within the team and partition (`-2`, `-3`… ' +
      `when taken). ${AUTHOR} ${ATTACHMENTS}`,
    permission: 'manage_community',
    params: { teamId: 'team' },
    body: createPostBody,
    success: { status: 201, data: communityPostSchema, shape: 'envelope' },
    errors: [...WRITE_ERRORS, 'resource_not_found'],
  },
  getCommunityPost: {
    ...posts,
    keys: 'public',
    method: 'GET',
    path: '/teams/{teamId}/community/posts/{postId}',
    summary: 'Retrieve a community post',
    description: PUBLIC_READ,
    permission: 'view_community',
    params: postParams,
    success: { status: 200, data: communityPostSchema, shape: 'envelope' },
    errors: ['resource_not_found'],
  },
  updateCommunityPost: {
    ...posts,
    keys: 'staff',
    method: 'PATCH',
    path: '/teams/{teamId}/community/posts/{postId}',
    summary: 'Update a community post',
    description:
      'Only given fields change. Any `status` may follow any other (the spec shows no transitions); a change also emits ' +
      '`community.post.status_changed`. `customFields` is merged (null removes a value; a required one cannot be removed). ' +
      `\`attachments\` replaces the list; attachments left out are deleted from storage. The slug never changes. ${ATTACHMENTS}`,
    permission: 'manage_community',
    params: postParams,
    body: updatePostBody,
    success: { status: 200, data: communityPostSchema, shape: 'envelope' },
    errors: [...WRITE_ERRORS, 'resource_not_found'],
  },
  deleteCommunityPost: {
    ...posts,
    keys: 'staff',
    method: 'DELETE',
    path: '/teams/{teamId}/community/posts/{postId}',
    summary: 'Delete a community post',
    description: 'Its comments and votes go with it, and every attachment of the post and its comments is deleted from storage.',
    permission: 'manage_community',
    params: postParams,
    success: { status: 200, data: deletedSchema, shape: 'envelope' },
    errors: ['resource_not_found'],
  },

});
