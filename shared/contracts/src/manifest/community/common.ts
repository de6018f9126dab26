import { z } from 'zod';

/**
 * What the community service's resources (topics, posts, comments, votes and image attachments;
 * docs/adr/0017-community.md, docs/adr/0018-attachment-storage.md) share: limits, field rules and the
 * operations' common parts.
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
export const BASE64_CHARS_MAX = 7_000_000;
export const UPLOAD_BODY_LIMIT = 7_200_000;

/** A customer of the team (`cus_…`), for a secret key acting on a customer's behalf. */
export const customerIdField = z.string().regex(/^cus_[A-Za-z0-9]{8,64}$/, { message: 'must be a customer id (cus_…)' });
export const uuidField = z.string().uuid();

export const topics = { service: 'community', tag: 'Community topics' } as const;
export const posts = { service: 'community', tag: 'Community posts' } as const;
export const comments = { service: 'community', tag: 'Community comments' } as const;
export const votes = { service: 'community', tag: 'Community votes' } as const;
export const attachments = { service: 'community', tag: 'Community attachments' } as const;
export const topicParams = { teamId: 'team', topicId: 'uuid' } as const;
export const postParams = { teamId: 'team', postId: 'uuid' } as const;
export const WRITE_ERRORS = ['parameter_missing', 'parameter_invalid', 'invalid_json', 'idempotency_key_in_use'] as const;
export const PUBLIC_READ = 'Publishable keys may read it: they see `public` posts only (a `members_only` post is a 404) and never `custom_fields`.';
export const AUTHOR =
  'The author is the member behind the key (`{type: "member"}`, or `{type: "key", id: keyId}` while keys have no member), or, with ' +
  '`customerId`, that customer of the team (`{type: "customer"}`; an unknown customer is 404, nothing written).';
export const ATTACHMENTS =
  'Attachments are references to uploads (POST /community/attachments): each `storage_path` must be an upload of this team and ' +
  'partition not attached elsewhere (else 400, param `attachments.<i>`); echoed `filename`, `content_type`, `size_bytes` must match.';
