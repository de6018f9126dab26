import { z } from 'zod';
import { webhookSnapshotSchema } from '../../catalog/webhooks';
import { nameField, paginationFields, queryBool } from '../../fields';
import { isKnownEventType } from '../../events';
import { MAX_PATTERNS, patternProblem } from '../../webhook-patterns';
import { defineOperations, deletedSchema } from '../operation';

/** The webhooks service's public operations: subscriptions, trigger-test, the delivery log (docs/adr/0007). */

export const URL_MAX = 2048;

/** Checked further by the service (scheme and address rules depend on the deployment's settings). */
const urlField = z.string().min(1).max(URL_MAX);

/**
 * `events` on write: a comma-separated string (as the spec shows) or an array of strings (what a read
 * returns). Items are trimmed; an empty item or an unknown type or pattern is refused; repeats dropped.
 */
const eventsField = z
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

export const createWebhookBody = z.strictObject({ name: nameField(), url: urlField, events: eventsField });
export type CreateWebhookInput = z.output<typeof createWebhookBody>;

export const updateWebhookBody = z.strictObject({
  name: nameField().optional(),
  url: urlField.optional(),
  events: eventsField.optional(),
  isActive: z.boolean().optional(),
});
export type UpdateWebhookInput = z.output<typeof updateWebhookBody>;

export const listWebhooksQuery = z.strictObject({ isActive: queryBool().optional(), ...paginationFields(20, 100) });
export type ListWebhooksQuery = z.output<typeof listWebhooksQuery>;

export const triggerTestBody = z.strictObject({ event: z.string() });

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed', 'cancelled'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export const listDeliveriesQuery = z.strictObject({
  status: z.enum(DELIVERY_STATUSES).optional(),
  eventType: z.string().refine(isKnownEventType, { message: 'must be a known event type' }).optional(),
  ...paginationFields(20, 100),
});
export type ListDeliveriesQuery = z.output<typeof listDeliveriesQuery>;

export const webhookSchema = webhookSnapshotSchema.meta({ id: 'Webhook' });
export const createdWebhookSchema = webhookSnapshotSchema.extend({ secret: z.string() }).meta({ id: 'CreatedWebhook' });

const iso = z.string().datetime();
export const deliverySchema = z
  .object({
    id: z.string(),
    webhookId: z.string(),
    eventId: z.string(),
    eventType: z.string(),
    test: z.boolean(),
    status: z.enum(DELIVERY_STATUSES),
    attempts: z.array(
      z.object({ attempt: z.number().int(), at: iso, statusCode: z.number().int().nullable(), durationMs: z.number(), error: z.string().nullable() }),
    ),
    attemptCount: z.number().int(),
    nextAttemptAt: iso.nullable(),
    createdAt: iso,
    updatedAt: iso,
    /** The exact body sent, parsed: only on the single read. */
    payload: z.unknown().optional(),
  })
  .meta({ id: 'WebhookDelivery' });

export const triggerTestResultSchema = z
  .object({
    event: z.string(),
    eventId: z.string(),
    test: z.literal(true),
    deliveries: z.array(z.object({ id: z.string(), webhookId: z.string(), url: z.string(), status: z.enum(DELIVERY_STATUSES), nextAttemptAt: iso.nullable() })),
  })
  .meta({ id: 'TriggerTestResult' });

// ---------- operations ----------

const base = { service: 'webhooks', tag: 'Webhooks', keys: 'staff' } as const;
const webhookParams = { teamId: 'team', webhookId: 'webhook' } as const;
const deliveryParams = { teamId: 'team', webhookId: 'webhook', deliveryId: 'delivery' } as const;

export const WEBHOOKS = defineOperations({
  listWebhooks: {
    ...base,
    method: 'GET',
    path: '/teams/{teamId}/webhooks',
    summary: 'List webhooks',
    description: 'Newest first, never with the secret; `isActive` filters.',
    permission: 'view_webhooks',
    params: { teamId: 'team' },
    query: listWebhooksQuery,
    success: { status: 200, data: z.array(webhookSchema), shape: 'envelope', pagination: 'meta' },
    errors: ['parameter_invalid'],
  },
  createWebhook: {
    ...base,
    method: 'POST',
    path: '/teams/{teamId}/webhooks',
    summary: 'Create a webhook',
    description:
      '`url`: an absolute https URL (at most 2,048 characters, no credentials) whose host is not a private, loopback (`localhost` ' +
      'included), link-local or other non-public address; stored normalised. The same rule is applied again before every delivery ' +
      'attempt. A deployment started with `WEBHOOKS_ALLOW_LOOPBACK=true` (unsafe, local development only) also accepts loopback ' +
      'hosts, over plain http too; a refusal that setting would lift names it. `events`: a comma-separated string or an array of event types, `<category>.*` or ' +
      '`*`. The same url with the same set of events is 409 (param url); 20 webhooks per team and partition (the 21st is 409). ' +
      'The answer is the only one that carries `secret` (`whsec_…`, keys both signatures); it is stored encrypted (docs/adr/0067). ' +
      'Least privilege (docs/adr/0066): a webhook reads as the key that creates it (its role\'s permissions within its scopes), so it ' +
      'receives an event only when that key may read the event\'s resource through the API (`*` included); a pattern that matches ' +
      'only events the key may not read is 403 `insufficient_permissions` (param events) and nothing is written. When the key\'s member ' +
      'gets a narrower role, or leaves, the webhook narrows with them (never widens). Delivery body, headers, signatures, the ' +
      'retry schedule (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h) and the 10 s timeout: see the webhooks README.',
    permission: 'manage_webhooks',
    params: { teamId: 'team' },
    body: createWebhookBody,
    success: { status: 201, data: createdWebhookSchema, shape: 'envelope' },
    errors: ['parameter_missing', 'parameter_invalid', 'invalid_json', 'resource_conflict', 'idempotency_key_in_use'],
  },
  triggerWebhookTest: {
    ...base,
    method: 'POST',
    path: '/teams/{teamId}/webhooks/trigger-test',
    summary: 'Send a test event to every active webhook',
    description:
      '`event` (required, as the spec says) is the type the test event carries, e.g. `{"event": "ticket.created"}`; without it: 400 ' +
      '`parameter_missing` (param event). A test event (new event id, `test: true`, empty `data`) goes to every active webhook of the ' +
      'team and partition, whatever it subscribes to, and to the event stream, wherever a real event of the type could go (docs/adr/0066: ' +
      'a webhook whose key may not read it gets none). An unknown event is 400 with the code in uppercase (`PARAMETER_INVALID`), as the spec shows.',
    permission: 'manage_webhooks',
    params: { teamId: 'team' },
    body: triggerTestBody,
    success: { status: 200, data: triggerTestResultSchema, shape: 'envelope' },
    errors: ['parameter_missing', 'parameter_invalid', 'invalid_json', 'idempotency_key_in_use'],
  },
  getWebhook: {
    ...base,
    method: 'GET',
    path: '/teams/{teamId}/webhooks/{webhookId}',
    summary: 'Retrieve a webhook',
    permission: 'view_webhooks',
    params: webhookParams,
    success: { status: 200, data: webhookSchema, shape: 'envelope' },
    errors: ['parameter_invalid', 'resource_not_found'],
  },
  updateWebhook: {
    ...base,
    method: 'PATCH',
    path: '/teams/{teamId}/webhooks/{webhookId}',
    summary: 'Update a webhook',
    description:
      '`isActive: false` cancels its pending deliveries; `isActive: true` starts its failing streak over. Changing `url` or `events` ' +
      'makes the webhook read as the calling key from then on (docs/adr/0066): its events are checked against that key as on create ' +
      '(403 `insufficient_permissions`, param events).',
    permission: 'manage_webhooks',
    params: webhookParams,
    body: updateWebhookBody,
    success: { status: 200, data: webhookSchema, shape: 'envelope' },
    errors: ['parameter_missing', 'parameter_invalid', 'invalid_json', 'resource_not_found', 'resource_conflict', 'idempotency_key_in_use'],
  },
  deleteWebhook: {
    ...base,
    method: 'DELETE',
    path: '/teams/{teamId}/webhooks/{webhookId}',
    summary: 'Delete a webhook',
    description: 'Cancels its pending deliveries and removes its delivery log. Answers `{id, deleted: true}`.',
    permission: 'manage_webhooks',
    params: webhookParams,
    success: { status: 200, data: deletedSchema, shape: 'envelope' },
    errors: ['resource_not_found'],
  },
  listWebhookDeliveries: {
    ...base,
    method: 'GET',
    path: '/teams/{teamId}/webhooks/{webhookId}/deliveries',
    summary: 'The delivery log of a webhook',
    description: 'Not shown by the spec (docs/adr/0007): every delivery, newest first, with its attempts; kept 30 days.',
    permission: 'view_webhooks',
    params: webhookParams,
    query: listDeliveriesQuery,
    success: { status: 200, data: z.array(deliverySchema), shape: 'envelope', pagination: 'meta' },
    errors: ['parameter_invalid', 'resource_not_found'],
  },
  getWebhookDelivery: {
    ...base,
    method: 'GET',
    path: '/teams/{teamId}/webhooks/{webhookId}/deliveries/{deliveryId}',
    summary: 'One delivery, with the exact payload sent',
    permission: 'view_webhooks',
    params: deliveryParams,
    success: { status: 200, data: deliverySchema, shape: 'envelope' },
    errors: ['parameter_invalid', 'resource_not_found'],
  },
  redeliverWebhookDelivery: {
    ...base,
    method: 'POST',
    path: '/teams/{teamId}/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver',
    summary: 'Send a delivery again now',
    description:
      'Same delivery id and body, due at once, on a fresh run of the retry schedule. Answers 202. An inactive webhook is 409: enable ' +
      'it first; so is one that may no longer read the event (docs/adr/0066).',
    permission: 'manage_webhooks',
    params: deliveryParams,
    body: z.strictObject({}),
    success: { status: 202, data: deliverySchema, shape: 'envelope' },
    errors: ['parameter_invalid', 'invalid_json', 'resource_not_found', 'resource_conflict', 'idempotency_key_in_use'],
  },
});
