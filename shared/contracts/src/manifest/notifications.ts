import { z } from 'zod';
import { NOTIFICATION_TYPES, notificationPreferencesSchema, notificationSnapshotSchema } from '../catalog/notifications';
import { paginationFields, queryBool } from '../fields';
import { defineOperations } from './operation';

/**
 * The notifications service's operations: a member's notifications (docs/adr/0020). Every call names
 * the member through `userId`: the member's account id (the Member's `userId`, a UUID) or their
 * member id (`mem_…`). Someone who is not a member of the team is a 404 (param userId).
 */

/** Counting stops here: a larger backlog answers this number with `truncated: true` (a badge shows "1000+"). */
export const UNREAD_COUNT_CAP = 1_000;

const MEMBER_REF_RE = /^(mem_[A-Za-z0-9]{1,64}|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$/;
export const userIdField = z.string().regex(MEMBER_REF_RE, { message: 'must be a member\'s userId (a UUID) or member id (mem_…)' });

export const notificationSchema = notificationSnapshotSchema.meta({ id: 'Notification' });
export const listNotificationsQuery = z.strictObject({
  userId: userIdField,
  /** false: unread only; true: read only; absent: both. */
  isRead: queryBool().optional(),
  type: z.enum(NOTIFICATION_TYPES).optional(),
  ...paginationFields(20, 100),
});
export type ListNotificationsQuery = z.output<typeof listNotificationsQuery>;
export const unreadCountQuery = z.strictObject({ userId: userIdField });
export const markReadBody = z.strictObject({ userId: userIdField });
export const preferencesQuery = z.strictObject({ userId: userIdField });
export const updatePreferencesBody = z.strictObject({ userId: userIdField, email: z.boolean() });
const preferencesSchema = notificationPreferencesSchema.meta({ id: 'NotificationPreferences' });

const notifications = { service: 'notifications', tag: 'Notifications', keys: 'staff' } as const;
const USER_ID = 'The member is named by `userId` (their account UUID or `mem_…` id); not a member of the team: 404 (param userId).';

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
});
