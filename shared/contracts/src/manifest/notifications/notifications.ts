import { z } from 'zod';
import { partitionSchema } from '../../partition';
import { NOTIFICATION_TYPES, notificationPreferencesSchema, notificationSnapshotSchema } from '../../catalog/notifications';
import { paginationFields, queryBool } from '../../fields';
import { MAX_PATTERNS, patternProblem } from '../../webhook-patterns';
import { defineOperations } from '../operation';

/**
 * The notifications service's operations: a member's notifications (docs/adr/0020). Every call is
 * about one member: the one `userId` names (the member's account id, the Member's `userId`, a UUID, or
 * their member id `mem_…`), else the key's own member. Someone who is not a member of the team is a
 * 404 (param userId); a key without a member must name one (400 parameter_missing, param userId).
 */

/** Counting stops here: a larger backlog answers this number with `truncated: true` (a badge shows "1000+"). */
export const UNREAD_COUNT_CAP = 1_000;

const MEMBER_REF_RE = /^(mem_[A-Za-z0-9]{1,64}|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$/;
export const userIdField = z.string().regex(MEMBER_REF_RE, { message: 'must be a member\'s userId (a UUID) or member id (mem_…)' });

export const notificationSchema = notificationSnapshotSchema.meta({ id: 'Notification' });
export const listNotificationsQuery = z.strictObject({
  userId: userIdField.optional(),
  /** false: unread only; true: read only; absent: both. */
  isRead: queryBool().optional(),
  type: z.enum(NOTIFICATION_TYPES).optional(),
  ...paginationFields(20, 100),
});
export type ListNotificationsQuery = z.output<typeof listNotificationsQuery>;
export const unreadCountQuery = z.strictObject({ userId: userIdField.optional() });
export const markReadBody = z.strictObject({ userId: userIdField.optional() });
export const preferencesQuery = z.strictObject({ userId: userIdField.optional() });
export const updatePreferencesBody = z.strictObject({ userId: userIdField.optional(), email: z.boolean() });
const preferencesSchema = notificationPreferencesSchema.meta({ id: 'NotificationPreferences' });

const notifications = { service: 'notifications', tag: 'Notifications', keys: 'staff' } as const;

/** How long the event stream's log keeps an event for a `Last-Event-ID` replay (docs/adr/0021). */
export const STREAM_RETENTION_MS = 24 * 60 * 60 * 1000;
/** The stream's log ids: `<ms>-<seq>`, Redis Streams' ids, increasing per team and partition. */
export const STREAM_ID_RE = /^\d{1,15}-\d{1,15}$/;
/**
 * `types` of the stream and of a stream token: comma-separated webhook patterns → the list, or why it
 * is refused (absent: `*`, everything).
 */
export function streamPatterns(types: string | undefined): { patterns: string[]; problem: null } | { patterns: null; problem: string } {
  if (types === undefined) return { patterns: ['*'], problem: null };
  const patterns = types.split(',').map((p) => p.trim());
  if (patterns.length > MAX_PATTERNS) return { patterns: null, problem: `At most ${MAX_PATTERNS} patterns.` };
  for (const p of patterns) {
    const problem = p === '' ? 'an empty pattern' : patternProblem(p);
    if (problem) return { patterns: null, problem: `Invalid types: ${problem}.` };
  }
  return { patterns, problem: null };
}
const streamTypesField = z.string().max(2_000);

/** How long a stream token opens streams (docs/adr/0031): a leaked URL soon stops working. */
export const STREAM_TOKEN_TTL_MS = 5 * 60 * 1000;
export const createStreamTokenBody = z.strictObject({
  /** The patterns the token's streams carry (absent: `*`); a stream opened with the token cannot widen them. */
  types: streamTypesField.optional(),
});
export const streamTokenSchema = z
  .object({
    object: z.literal('stream_token'),
    token: z.string(),
    expiresAt: z.string().datetime(),
    types: z.array(z.string()),
  })
  .meta({ id: 'StreamToken' });

export const eventStreamQuery = z.strictObject({
  /** Comma-separated webhook patterns: exact types, `<category>.*`, or `*` (all, the default). */
  types: streamTypesField.optional(),
  /** A stream token (`POST …/events/stream-tokens`) instead of an API key, for browsers; the gateway checks and removes it. */
  token: z.string().max(1_000).optional(),
  /** The last id seen, for clients that cannot send the `Last-Event-ID` header (the header wins). */
  lastEventId: z.string().regex(STREAM_ID_RE, { message: 'must be a stream id (<ms>-<seq>) from a frame\'s id: line' }).optional(),
});
/** One frame's `data:`: the event exactly as a webhook delivery's body carries it. */
export const streamEventSchema = z
  .object({
    id: z.string(),
    type: z.string(),
    createdAt: z.string(),
    teamId: z.string(),
    mode: partitionSchema,
    test: z.literal(true).optional(),
    data: z.record(z.string(), z.unknown()),
  })
  .meta({ id: 'StreamEvent' });
const USER_ID =
  'The member is named by `userId` (their account UUID or `mem_…` id); not a member of the team: 404 (param userId). `userId` ' +
  'defaults to the key\'s own member (`memberId` in `GET /auth/whoami`); a key that belongs to no member must name one (400 ' +
  'parameter_missing, param userId).';

export const NOTIFICATIONS = defineOperations({
  listNotifications: {
    ...notifications,
    method: 'GET',
    path: '/teams/{teamId}/notifications',
    summary: 'List a member\'s notifications',
    description:
      `Newest first, in the key's partition. ${USER_ID} \`isRead=false\` lists unread ones only, \`true\` read ones only. Types: ` +
      '`assigned`, `customer_replied`, `mentioned` (an internal note naming `@<email>` or `@<name without spaces>`), `invite_accepted` ' +
      '(docs/adr/0020).',
    permission: null,
    params: { teamId: 'team' },
    query: listNotificationsQuery,
    success: { status: 200, data: z.array(notificationSchema), shape: 'envelope', pagination: 'meta' },
    errors: ['parameter_missing', 'parameter_invalid', 'resource_not_found'],
  },
  getUnreadNotificationCount: {
    ...notifications,
    method: 'GET',
    path: '/teams/{teamId}/notifications/unread-count',
    summary: 'Count a member\'s unread notifications',
    description: `${USER_ID} Counting stops at ${UNREAD_COUNT_CAP}: a larger backlog answers ${UNREAD_COUNT_CAP} with \`truncated: true\`.`,
    permission: null,
    params: { teamId: 'team' },
    query: unreadCountQuery,
    success: {
      status: 200,
      data: z.object({ unreadCount: z.number().int(), truncated: z.boolean() }).meta({ id: 'UnreadNotificationCount' }),
      shape: 'envelope',
    },
    errors: ['parameter_missing', 'parameter_invalid', 'resource_not_found'],
  },
  markAllNotificationsRead: {
    ...notifications,
    method: 'POST',
    path: '/teams/{teamId}/notifications/mark-all-read',
    summary: 'Mark all of a member\'s notifications read',
    description: `${USER_ID} Answers how many were unread (0 when none: repeating it is harmless).`,
    permission: null,
    params: { teamId: 'team' },
    body: markReadBody,
    success: { status: 200, data: z.object({ markedRead: z.number().int() }).meta({ id: 'MarkedRead' }), shape: 'envelope' },
    errors: ['parameter_missing', 'parameter_invalid', 'invalid_json', 'resource_not_found', 'idempotency_key_in_use'],
  },
  markNotificationRead: {
    ...notifications,
    method: 'POST',
    path: '/teams/{teamId}/notifications/{notificationId}/read',
    summary: 'Mark one notification read',
    description:
      `${USER_ID} A notification of another member is a 404 like a missing one. Marking a read notification again answers it ` +
      'unchanged (its first `readAt`).',
    permission: null,
    params: { teamId: 'team', notificationId: 'notification' },
    body: markReadBody,
    success: { status: 200, data: notificationSchema, shape: 'envelope' },
    errors: ['parameter_missing', 'parameter_invalid', 'invalid_json', 'resource_not_found', 'idempotency_key_in_use'],
  },
  getNotificationPreferences: {
    ...notifications,
    method: 'GET',
    path: '/teams/{teamId}/notifications/preferences',
    summary: 'A member\'s notification settings',
    description: `${USER_ID} \`email\` (default false): an email to the member's address for each new notification.`,
    permission: null,
    params: { teamId: 'team' },
    query: preferencesQuery,
    success: { status: 200, data: preferencesSchema, shape: 'envelope' },
    errors: ['parameter_missing', 'parameter_invalid', 'resource_not_found'],
  },
  updateNotificationPreferences: {
    ...notifications,
    method: 'PATCH',
    path: '/teams/{teamId}/notifications/preferences',
    summary: 'Change a member\'s notification settings',
    description:
      `${USER_ID} \`email: true\` sends an email (plain text and HTML) to the member for each notification made from then on, ` +
      'in either partition. Emits `notification.preferences_updated` when it changes.',
    permission: null,
    params: { teamId: 'team' },
    body: updatePreferencesBody,
    success: { status: 200, data: preferencesSchema, shape: 'envelope' },
    errors: ['parameter_missing', 'parameter_invalid', 'invalid_json', 'resource_not_found', 'idempotency_key_in_use'],
  },
  streamEvents: {
    service: 'notifications',
    tag: 'Events',
    keys: 'secret',
    method: 'GET',
    path: '/teams/{teamId}/events/stream',
    summary: 'Stream the team\'s events (server-sent events)',
    description:
      'A `text/event-stream` of every event of the key\'s team and partition, oldest first (docs/adr/0021). The first frame is ' +
      '`retry: 3000`; each event is a frame `id: <ms>-<seq>` / `event: <type>` / `data: <StreamEvent JSON>` (the webhook delivery ' +
      'body: `{id, type, createdAt, teamId, mode, [test: true], data}`); a `: heartbeat` comment comes every 15 s. `types` filters ' +
      'with the webhook patterns (`ticket.*,customer.updated`; `*` or absent: everything); a bad pattern is 400 `parameter_invalid` ' +
      '(param `types`). `Last-Event-ID` (header, or `lastEventId`) replays the events after that id from a log kept 24 hours; an id ' +
      'older than the log answers one `event: stream.gap` frame (`data: {lastEventId, oldestAvailableId}`) before what is left: ' +
      'never a silent gap. A client that reads too slowly (over 1 MiB waiting) is disconnected and may reconnect with its last id. ' +
      'Secret keys only, or `?token=` with a stream token (`POST …/events/stream-tokens`, docs/adr/0031) and no key: a browser\'s ' +
      '`EventSource` cannot send a header; with a token the stream carries the token\'s `types` (a `types` parameter beside it is 400), a bad ' +
      'token is 401 `invalid_api_key` and an expired one 401 `key_expired` (param `token`). The stream ends when its key (the token\'s ' +
      'issuing key) is revoked. Counted once against the rate limit (of the issuing key). Least privilege (docs/adr/0066): an event ' +
      'reaches the stream only when the key may read its resource through the API, i.e. holds the event type\'s permission (that of ' +
      'the GET operation reading the resource: `view_webhooks` for `webhook.*`, `manage_automations` for `automation.*` …; the ' +
      'effective permissions of its member\'s role within its scopes); an API key\'s events also reach its own member, a private saved ' +
      'view\'s only its creator. `types` only narrows that: a pattern that matches only events the key may not read is 403 ' +
      '`insufficient_permissions` (param `types`). When the key\'s permissions change (its member\'s role) the stream ends, and the ' +
      'client reconnects with `Last-Event-ID` under the new ones.',
    permission: null,
    params: { teamId: 'team' },
    query: eventStreamQuery,
    success: { status: 200, data: streamEventSchema, shape: 'envelope' },
    stream: true,
    errors: ['parameter_invalid'],
  },
});
