import { z } from 'zod';
import { paginationFields } from '@helpdesk/kit';
import { keyValueField, nameField as kitNameField, OBJECT_KEYS_MAX } from '@helpdesk/kit';
import { SEARCH_MAX } from '../common';

const nameField = kitNameField();

export const SLUG_MAX = 100;
export const SLUG_RE = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
export const DESCRIPTION_MAX = 2_000;
export const EXTERNAL_ID_MAX = 255;

/** What slugify(name, {lower, strict}) produces: lowercase letters and digits in dash-separated words. */
const slugField = z
  .string()
  .max(SLUG_MAX)
  .regex(SLUG_RE, { message: 'must be lowercase letters and digits in words separated by single dashes' });
const descriptionField = z.string().max(DESCRIPTION_MAX).nullable();

export const createGroupSchema = z.strictObject({
  name: nameField,
  slug: slugField.optional(),
  description: descriptionField.optional(),
  externalId: z.string().trim().min(1).max(EXTERNAL_ID_MAX).nullable().optional(),
  customFields: keyValueField(OBJECT_KEYS_MAX).optional(),
});
export type CreateGroupInput = z.infer<typeof createGroupSchema>;

/** PATCH: the spec's name, slug, description, customFields (merged like metadata). externalId is set once, at creation. */
export const updateGroupSchema = z.strictObject({
  name: nameField.optional(),
  slug: slugField.optional(),
  description: descriptionField.optional(),
  customFields: keyValueField(null).optional(),
});
export type UpdateGroupInput = z.infer<typeof updateGroupSchema>;

/** Page size 25 by default (the spec's customer-group default), at most 100. */
export const listGroupsQuery = z.strictObject({
  search: z.string().max(SEARCH_MAX).optional(),
  ...paginationFields(25, 100),
});
export type ListGroupsQuery = z.infer<typeof listGroupsQuery>;
