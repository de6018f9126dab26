import { z } from 'zod';
import { changeFields, iso } from './common';
import type { CatalogEntry } from './read';

/**
 * The community service's events (type → {version, data schema}), spread into EVENT_CATALOG in ../events.ts.
 * Snapshot schemas the events carry live here too, so that each service's events sit in one file.
 * Posts, comments and attachments are snake_case as the spec gives them; topics camelCase as the spec
 * gives them (docs/adr/0017-community.md).
 */

export const COMMUNITY_POST_STATUSES = ['open', 'answered', 'officially_answered', 'planned', 'not_planned', 'completed', 'under_review'] as const;
export type CommunityPostStatus = (typeof COMMUNITY_POST_STATUSES)[number];
export const COMMUNITY_VISIBILITIES = ['public', 'members_only'] as const;
export const COMMUNITY_FIELD_TYPES = ['text', 'number', 'boolean', 'select', 'date'] as const;
export type CommunityFieldType = (typeof COMMUNITY_FIELD_TYPES)[number];

/**
 * Who wrote a post or comment, or cast a vote: the member behind the key (`member`), the key itself
 * while keys have no member (`key`), or the customer a secret key acted for (`customer`). `member`
 * and `key` are staff.
 */
export const communityAuthorSchema = z.object({ type: z.enum(['member', 'key', 'customer']), id: z.string() }).meta({ id: 'CommunityAuthor' });
export type CommunityAuthor = z.infer<typeof communityAuthorSchema>;

/** One field a topic's posts may (or must) fill: the topic owns its field definitions. */
export const communityFieldConfigSchema = z
  .object({
    fieldId: z.string().uuid(),
    name: z.string(),
    type: z.enum(COMMUNITY_FIELD_TYPES),
    required: z.boolean(),
    /** The allowed values of a `select` field; empty for the other types. */
    options: z.array(z.string()),
  })
  .meta({ id: 'CommunityFieldConfig' });
export type CommunityFieldConfig = z.infer<typeof communityFieldConfigSchema>;

/** The spec's Community topic (`id`, `name`, `slug`, `customFieldConfig`, `postCount`) with its description and dates. */
export const communityTopicSnapshotSchema = z.object({
  id: z.string().uuid(),
  name: z.string(),
  slug: z.string(),
  description: z.string().nullable(),
  customFieldConfig: z.array(communityFieldConfigSchema),
  postCount: z.number().int(),
  createdAt: iso,
  updatedAt: iso,
});
export type CommunityTopicSnapshot = z.infer<typeof communityTopicSnapshotSchema>;

/** An attachment as posts and comments list it: the spec's four fields and the id to read it back by. */
export const communityAttachmentSchema = z
  .object({
    id: z.string().uuid(),
    filename: z.string(),
    content_type: z.enum(['image/jpeg', 'image/png', 'image/gif', 'image/webp']),
    size_bytes: z.number().int(),
    storage_path: z.string(),
  })
  .meta({ id: 'CommunityAttachment' });
export type CommunityAttachment = z.infer<typeof communityAttachmentSchema>;

/** The spec's Community post, complete (with `custom_fields`, `author` and `updated_at`). */
export const communityPostSnapshotSchema = z.object({
  id: z.string().uuid(),
  title: z.string(),
  slug: z.string(),
  body: z.string(),
  topic_id: z.string().uuid(),
  status: z.enum(COMMUNITY_POST_STATUSES),
  visibility: z.enum(COMMUNITY_VISIBILITIES),
  vote_count: z.number().int(),
  comment_count: z.number().int(),
  is_pinned: z.boolean(),
  is_locked: z.boolean(),
  custom_fields: z.record(z.string(), z.unknown()),
  attachments: z.array(communityAttachmentSchema),
  author: communityAuthorSchema,
  created_at: iso,
  updated_at: iso,
});
export type CommunityPostSnapshot = z.infer<typeof communityPostSnapshotSchema>;

export const communityCommentSnapshotSchema = z.object({
  id: z.string().uuid(),
  post_id: z.string().uuid(),
  body: z.string(),
  author: communityAuthorSchema,
  attachments: z.array(communityAttachmentSchema),
  is_official_answer: z.boolean(),
  created_at: iso,
  updated_at: iso,
});
export type CommunityCommentSnapshot = z.infer<typeof communityCommentSnapshotSchema>;

const vote = z.object({ post_id: z.string().uuid(), voter: communityAuthorSchema, vote_count: z.number().int() });

export const COMMUNITY_EVENTS = {
  'community.topic.created': { version: 1, read: { op: 'listCommunityTopics' }, data: z.object({ topic: communityTopicSnapshotSchema }) },
  'community.topic.updated': { version: 1, read: { op: 'listCommunityTopics' }, data: z.object({ topic: communityTopicSnapshotSchema, ...changeFields }) },
  'community.topic.deleted': { version: 1, read: { op: 'listCommunityTopics' }, data: z.object({ topic: communityTopicSnapshotSchema }) },
  'community.post.created': { version: 1, read: { op: 'getCommunityPost' }, data: z.object({ post: communityPostSnapshotSchema }) },
  'community.post.updated': { version: 1, read: { op: 'getCommunityPost' }, data: z.object({ post: communityPostSnapshotSchema, ...changeFields }) },
  /** Beside `community.post.updated` whenever the status moves (a PATCH, or an official answer marked or unmarked). */
  'community.post.status_changed': {
    version: 1, read: { op: 'getCommunityPost' },
    data: z.object({ post: communityPostSnapshotSchema, from: z.enum(COMMUNITY_POST_STATUSES), to: z.enum(COMMUNITY_POST_STATUSES) }),
  },
  'community.post.deleted': { version: 1, read: { op: 'getCommunityPost' }, data: z.object({ post: communityPostSnapshotSchema }) },
  'community.comment.created': { version: 1, read: { op: 'listCommunityComments' }, data: z.object({ comment: communityCommentSnapshotSchema }) },
  /** An official-answer mark set or removed. */
  'community.comment.updated': { version: 1, read: { op: 'listCommunityComments' }, data: z.object({ comment: communityCommentSnapshotSchema, ...changeFields }) },
  'community.vote.added': { version: 1, read: { op: 'getCommunityPost' }, data: vote },
  'community.vote.removed': { version: 1, read: { op: 'getCommunityPost' }, data: vote },
  'community.attachment.uploaded': { version: 1, read: { op: 'getCommunityAttachment' }, data: z.object({ attachment: communityAttachmentSchema }) },
} as const satisfies Record<string, CatalogEntry>;
