import { z } from 'zod';
import { changeFields, iso } from './common';
import type { CatalogEntry } from './read';

/** The webhooks service's events and the snapshot they carry. */

/** A webhook as events carry it: never its secret. */
export const webhookSnapshotSchema = z.object({
  id: z.string(),
  name: z.string(),
  url: z.string(),
  events: z.array(z.string()),
  isActive: z.boolean(),
  createdAt: iso,
  updatedAt: iso,
});
export type WebhookSnapshot = z.infer<typeof webhookSnapshotSchema>;

export const WEBHOOK_EVENTS = {
  'webhook.created': { version: 1, read: { op: 'getWebhook' }, data: z.object({ webhook: webhookSnapshotSchema }) },
  'webhook.updated': { version: 1, read: { op: 'getWebhook' }, data: z.object({ webhook: webhookSnapshotSchema, ...changeFields }) },
  'webhook.deleted': { version: 1, read: { op: 'getWebhook' }, data: z.object({ webhookId: z.string(), webhook: webhookSnapshotSchema }) },
  /** trigger-test ran: the test event it sent (docs/adr/0021), which the event stream passes on to its listeners. */
  'webhook.test_triggered': { version: 1, read: { op: 'getWebhook' }, data: z.object({ event: z.string(), eventId: z.string(), createdAt: z.string() }) },
  'webhook.disabled': {
    version: 1, read: { op: 'getWebhook' },
    data: z.object({
      webhook: webhookSnapshotSchema,
      /** `gone`: the receiver answered 410; `failing`: every delivery failed for 5 days. */
      reason: z.enum(['gone', 'failing']),
      lastStatusCode: z.number().int().nullable(),
      failingSince: iso.nullable(),
    }),
  },
} as const satisfies Record<string, CatalogEntry>;
