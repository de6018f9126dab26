import { z } from 'zod';
import { communityAttachmentSchema } from '../../catalog/community';
import { defineOperations } from '../operation';
import { attachments, BASE64_CHARS_MAX, COMMUNITY_LIMITS, UPLOAD_BODY_LIMIT, WRITE_ERRORS } from './common';

/** Image attachments of community posts (docs/adr/0017, 0018). */


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

export const COMMUNITY_ATTACHMENTS = defineOperations({
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
