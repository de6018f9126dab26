import { z } from 'zod';
import { nameField as kitNameField, paginationFields, queryBool } from '@helpdesk/kit';
import { MAX_PATTERNS, patternProblem } from './patterns';

export const URL_MAX = 2048;

/** A webhook's name: 1 to 255 characters, not only whitespace. */
export const nameField = kitNameField();

/** Checked further by the service (scheme and address rules depend on the deployment's settings). */
export const urlField = z.string().min(1).max(URL_MAX);

/**
 * `events` on write: a comma-separated string (`"ticket.created, ticket.closed"`, as the spec shows)
 * or, equally, an array of strings (what a read returns, so a client can send back what it read).
 * Items are trimmed; an empty item or an unknown type or pattern is refused; repeats are dropped.
 */
export const eventsField = z
  .union([z.string(), z.array(z.string())])
  .transform((v) => (Array.isArray(v) ? v : v.split(',')).map((s) => s.trim()))
  .superRefine((items, ctx) => {
    if (items.length === 0 || (items.length === 1 && items[0] === '')) {
      ctx.addIssue({ code: 'custom', message: 'must name at least one event type' });
      return;
    }
    if (items.some((s) => s === '')) ctx.addIssue({ code: 'custom', message: 'contains an empty item' });
    else if (items.length > MAX_PATTERNS) ctx.addIssue({ code: 'custom', message: `at most ${MAX_PATTERNS} items` });
    else {
      const problem = items.map(patternProblem).find((p) => p !== null);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    }
  })
  .transform((items) => [...new Set(items)]);

export const createWebhookSchema = z.strictObject({
  name: nameField,
  url: urlField,
  events: eventsField,
});
export type CreateWebhookInput = z.infer<typeof createWebhookSchema>;

/** PATCH: every field optional; only the given ones change. */
export const updateWebhookSchema = z.strictObject({
  name: nameField.optional(),
  url: urlField.optional(),
  events: eventsField.optional(),
  isActive: z.boolean().optional(),
});
export type UpdateWebhookInput = z.infer<typeof updateWebhookSchema>;

export const listWebhooksQuery = z.strictObject({
  isActive: queryBool().optional(),
  ...paginationFields(20, 100),
});
export type ListWebhooksQuery = z.infer<typeof listWebhooksQuery>;

/** No query parameters and no body fields where none are defined. */
export const noQuery = z.strictObject({});

export const triggerTestSchema = z.strictObject({
  event: z.string(),
});
