import { z } from 'zod';
import { SENTIMENTS } from '@helpdesk/contracts';
import { paginationFields } from '@helpdesk/kit';
import { keyValueField, nameField as kitNameField, notesField, OBJECT_KEYS_MAX, tagsField } from '@helpdesk/kit';
import { SEARCH_MAX } from '../common';

const nameField = kitNameField();

export const EMAIL_MAX = 254;
/** An email address, kept as sent; the service also stores a lowercase copy. */
export const emailField = z.email().max(EMAIL_MAX);

/** Create: `name` and `email` required; `status` and `sentiment` are not create fields (400 like any unknown field). */
export const createCustomerSchema = z.strictObject({
  name: nameField,
  email: emailField,
  tags: tagsField.optional(),
  notes: notesField.optional(),
  metadata: keyValueField(OBJECT_KEYS_MAX).optional(),
});
export type CreateCustomerInput = z.infer<typeof createCustomerSchema>;

/** PATCH: only given fields change. `status` is checked against the team's statuses by the service. */
export const updateCustomerSchema = z.strictObject({
  name: nameField.optional(),
  email: emailField.optional(),
  status: z.string().min(1).max(64).optional(),
  /** null clears the override: the calculated value shows again. */
  sentiment: z.enum(SENTIMENTS).nullable().optional(),
  tags: tagsField.optional(),
  notes: notesField.optional(),
  // The 50-key limit applies to the merged result (checked by the service).
  metadata: keyValueField(null).optional(),
});
export type UpdateCustomerInput = z.infer<typeof updateCustomerSchema>;

export const listCustomersQuery = z.strictObject({
  status: z.string().min(1).max(64).optional(),
  sentiment: z.enum(SENTIMENTS).optional(),
  search: z.string().max(SEARCH_MAX).optional(),
  ...paginationFields(20, 100),
});
export type ListCustomersQuery = z.infer<typeof listCustomersQuery>;
