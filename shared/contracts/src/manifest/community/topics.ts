import { z } from 'zod';
import { COMMUNITY_FIELD_TYPES, communityTopicSnapshotSchema } from '../../catalog/community';
import { nameField } from '../../fields';
import { defineOperations, deletedSchema } from '../operation';
import { COMMUNITY_LIMITS, topicParams, topics, uuidField, WRITE_ERRORS } from './common';

/** Community topics (docs/adr/0017). */


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

export const COMMUNITY_TOPICS = defineOperations({
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

});
