import { z } from 'zod';
import {
  COMMUNITY_FIELD_TYPES,
  COMMUNITY_POST_STATUSES,
  COMMUNITY_VISIBILITIES,
  communityAttachmentSchema,
  communityCommentSnapshotSchema,
  communityPostSnapshotSchema,
  communityTopicSnapshotSchema,
} from '../../catalog/community';
import { nameField, paginationFields } from '../../fields';
import { defineOperations, deletedSchema } from '../operation';

/**
 * The community service's public operations: topics, posts, comments, votes and image attachments
 * (docs/adr/0017-community.md, docs/adr/0018-attachment-storage.md).
 */

export const COMMUNITY_LIMITS = {
  titleMax: 255,
  bodyMax: 50_000,
  commentMax: 10_000,
  topicNameMax: 100,
  topicDescriptionMax: 2_000,
  fieldsPerTopic: 50,
  optionsPerField: 100,
  textValueMax: 5_000,
  attachmentsPerPost: 10,
  attachmentsPerComment: 5,
  /** 5 MB per file (5 × 1024 × 1024 bytes). */
  attachmentBytesMax: 5 * 1024 * 1024,
  filenameMax: 255,
} as const;

/**
 * The upload's base64 text: a 5 MB file is at most 6,990,508 characters; the schema lets a little more
 * through so that a file just over 5 MB is refused by its decoded size (400 param content), and the
 * gateway's limit for the upload (UPLOAD_BODY_LIMIT) lies above that.
 */
const BASE64_CHARS_MAX = 7_000_000;
export const UPLOAD_BODY_LIMIT = 7_200_000;

/** A customer of the team (`cus_…`), for a secret key acting on a customer's behalf. */
const customerIdField = z.string().regex(/^cus_[A-Za-z0-9]{8,64}$/, { message: 'must be a customer id (cus_…)' });
const uuidField = z.string().uuid();

// ---------- topics ----------

const fieldConfigInput = z.strictObject({
  /** Kept when given (an existing field); generated for a new one. */
  fieldId: uuidField.optional(),
  name: nameField(100),
  type: z.enum(COMMUNITY_FIELD_TYPES),
  required: z.boolean().optional().default(false),
  options: z.array(z.string().trim().min(1).max(100)).max(COMMUNITY_LIMITS.optionsPerField).optional(),
});
const fieldConfigList = z.array(fieldConfigInput).max(COMMUNITY_LIMITS.fieldsPerTopic);
export type CommunityFieldConfigInput = z.output<typeof fieldConfigInput>;

export const createTopicBody = z.strictObject({
  name: nameField(COMMUNITY_LIMITS.topicNameMax),
  description: z.string().max(COMMUNITY_LIMITS.topicDescriptionMax).nullable().optional(),
  customFieldConfig: fieldConfigList.optional(),
});
export type CreateTopicInput = z.output<typeof createTopicBody>;

export const updateTopicBody = z.strictObject({
  name: nameField(COMMUNITY_LIMITS.topicNameMax).optional(),
  description: z.string().max(COMMUNITY_LIMITS.topicDescriptionMax).nullable().optional(),
  customFieldConfig: fieldConfigList.optional(),
});
export type UpdateTopicInput = z.output<typeof updateTopicBody>;

export const communityTopicSchema = communityTopicSnapshotSchema.meta({ id: 'CommunityTopic' });

// ---------- posts ----------

/** A reference to an uploaded attachment: its `storage_path`; the other fields, when echoed, must match the upload. */
const attachmentRef = z.strictObject({
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

// ---------- comments ----------

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

// ---------- votes ----------

export const addVoteBody = z.strictObject({ customerId: customerIdField.optional() });
export const removeVoteQuery = z.strictObject({ customerId: customerIdField.optional() });
export const voteSchema = z
  .object({ post_id: uuidField, voter: communityPostSnapshotSchema.shape.author, voted: z.boolean(), vote_count: z.number().int() })
  .meta({ id: 'CommunityVote' });

// ---------- attachments ----------

export const uploadAttachmentBody = z.strictObject({
  filename: z
    .string()
    .trim()
    .min(1)
    .max(COMMUNITY_LIMITS.filenameMax)
    .refine((s) => !/[/\\\u0000-\u001f]/.test(s), { message: 'must not contain slashes or control characters' }),
  /** The file's bytes, base64-encoded (as GitHub's contents API takes them). */
  content: z.string().min(1).max(BASE64_CHARS_MAX),
});
export type UploadAttachmentInput = z.output<typeof uploadAttachmentBody>;

export const attachmentContentSchema = communityAttachmentSchema.extend({ content: z.string() }).meta({ id: 'CommunityAttachmentContent' });

// ---------- operations ----------

const topics = { service: 'community', tag: 'Community topics' } as const;
const posts = { service: 'community', tag: 'Community posts' } as const;
const comments = { service: 'community', tag: 'Community comments' } as const;
const votes = { service: 'community', tag: 'Community votes' } as const;
const attachments = { service: 'community', tag: 'Community attachments' } as const;
const topicParams = { teamId: 'team', topicId: 'uuid' } as const;
const postParams = { teamId: 'team', postId: 'uuid' } as const;
const WRITE_ERRORS = ['parameter_missing', 'parameter_invalid', 'invalid_json', 'idempotency_key_in_use'] as const;
const PUBLIC_READ = 'Publishable keys may read it: they see `public` posts only (a `members_only` post is a 404) and never `custom_fields`.';
const AUTHOR =
  'The author is the member behind the key (`{type: "member"}`, or `{type: "key", id: keyId}` while keys have no member), or, with ' +
  '`customerId`, that customer of the team (`{type: "customer"}`; an unknown customer is 404, nothing written).';
const ATTACHMENTS =
  'Attachments are references to uploads (POST /community/attachments): each `storage_path` must be an upload of this team and ' +
  'partition not attached elsewhere (else 400, param `attachments.<i>`); echoed `filename`, `content_type`, `size_bytes` must match.';

export const COMMUNITY = defineOperations({
  listCommunityTopics: {
    ...topics,
    keys: 'public',
    method: 'GET',
    path: '/teams/{teamId}/community/topics',
    summary: 'List community topics',
    description: 'Every topic, by name, with its `customFieldConfig` and `postCount`. Not paginated. Publishable keys may read it.',
    permission: 'view_community',
    params: { teamId: 'team' },
    success: { status: 200, data: z.array(communityTopicSchema), shape: 'envelope' },
    errors: ['parameter_invalid'],
  },
  createCommunityTopic: {
    ...topics,
    keys: 'staff',
    method: 'POST',
    path: '/teams/{teamId}/community/topics',
    summary: 'Create a community topic',
    description:
      'Not shown by the spec (docs/adr/0017). The slug is generated from the name and unique per team and partition (409, param ' +
      'name). `customFieldConfig` defines the fields its posts carry: `{fieldId?, name, type (text, number, boolean, select, date), ' +
      'required, options}` (`options` only, and required, for `select`); a fieldId is generated when not given.',
    permission: 'manage_community',
    params: { teamId: 'team' },
    body: createTopicBody,
    success: { status: 201, data: communityTopicSchema, shape: 'envelope' },
    errors: [...WRITE_ERRORS, 'resource_conflict'],
  },
  updateCommunityTopic: {
    ...topics,
    keys: 'staff',
    method: 'PATCH',
    path: '/teams/{teamId}/community/topics/{topicId}',
    summary: 'Update a community topic',
    description:
      'Renaming keeps the slug. `customFieldConfig` replaces the list (give an existing field\'s `fieldId` to keep it); it applies to ' +
      'posts written from then on.',
    permission: 'manage_community',
    params: topicParams,
    body: updateTopicBody,
    success: { status: 200, data: communityTopicSchema, shape: 'envelope' },
    errors: [...WRITE_ERRORS, 'resource_not_found'],
  },
  deleteCommunityTopic: {
    ...topics,
    keys: 'staff',
    method: 'DELETE',
    path: '/teams/{teamId}/community/topics/{topicId}',
    summary: 'Delete a community topic',
    description: 'Refused (409) while the topic has posts: delete them first. Answers `{id, deleted: true}`.',
    permission: 'manage_community',
    params: topicParams,
    success: { status: 200, data: deletedSchema, shape: 'envelope' },
    errors: ['resource_not_found', 'resource_conflict'],
  },

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

  uploadCommunityAttachment: {
    ...attachments,
    keys: 'staff',
    method: 'POST',
    path: '/teams/{teamId}/community/attachments',
    summary: 'Upload an image',
    description:
      'Not shown by the spec (docs/adr/0018). `content` is the file, base64-encoded. Only JPEG, PNG, GIF and WebP images, judged by ' +
      'their bytes (never by the name): anything else, or a file over 5 MB, is 400 param content and nothing is stored. Answers ' +
      '`{id, filename, content_type, size_bytes, storage_path}` to list in a post\'s or comment\'s `attachments`.',
    permission: 'manage_community',
    params: { teamId: 'team' },
    body: uploadAttachmentBody,
    bodyLimitBytes: UPLOAD_BODY_LIMIT,
    success: { status: 201, data: communityAttachmentSchema, shape: 'envelope' },
    errors: WRITE_ERRORS,
  },
  getCommunityAttachment: {
    ...attachments,
    keys: 'public',
    method: 'GET',
    path: '/teams/{teamId}/community/attachments/{attachmentId}',
    summary: 'Read an attachment back',
    description:
      'The attachment with its bytes in `content` (base64). Publishable keys may read attachments of `public` posts and their comments only.',
    permission: 'view_community',
    params: { teamId: 'team', attachmentId: 'uuid' },
    success: { status: 200, data: attachmentContentSchema, shape: 'envelope' },
    errors: ['resource_not_found'],
  },
});
