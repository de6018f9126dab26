import { z } from 'zod';
import { changeFields, iso } from './common';
import type { CatalogEntry } from './read';

/**
 * The notifications service's events (type → {version, data schema}), spread into EVENT_CATALOG in
 * ../events.ts, and the Notification they carry (docs/adr/0020).
 */

/**
 * The notification types made today, each from an event that exists (docs/adr/0020):
 * `assigned` (ticket.updated changed `assignedTo`), `customer_replied` (a customer's public message
 * on a ticket assigned to the member), `mentioned` (`@…` in an internal note), `invite_accepted`
 * (someone the member invited joined), `sla_breached` (sla.breached, for the ticket's assignee;
 * docs/adr/0026), `boss_spawned` and `boss_defeated` (game.boss.*, for every member not in boring
 * mode; docs/adr/0032), `automation` (automation.member_notified: a rule's notify_member action,
 * for the member it names; docs/adr/0028).
 */
export const NOTIFICATION_TYPES = ['assigned', 'customer_replied', 'mentioned', 'invite_accepted', 'sla_breached', 'boss_spawned', 'boss_defeated', 'automation'] as const;
export type NotificationType = (typeof NOTIFICATION_TYPES)[number];

export const notificationSnapshotSchema = z.object({
  id: z.string(),
  object: z.literal('notification'),
  type: z.enum(NOTIFICATION_TYPES),
  title: z.string(),
  body: z.string(),
  /** The ticket it is about, or null (an accepted invite). */
  ticketId: z.string().nullable(),
  /** The member it is for (`mem_…`). */
  memberId: z.string(),
  isRead: z.boolean(),
  readAt: iso.nullable(),
  createdAt: iso,
});
export type NotificationSnapshot = z.infer<typeof notificationSnapshotSchema>;

/** A member's notification settings, kept by this service (docs/adr/0020). */
export const notificationPreferencesSchema = z.object({
  memberId: z.string(),
  /** An email to the member for each new notification (default false). */
  email: z.boolean(),
});
export type NotificationPreferences = z.infer<typeof notificationPreferencesSchema>;

export const NOTIFICATIONS_EVENTS = {
  'notification.created': { version: 1, read: { op: 'listNotifications' }, data: z.object({ notification: notificationSnapshotSchema, sourceEventId: z.string() }) },
  'notification.read': { version: 1, read: { op: 'listNotifications' }, data: z.object({ notification: notificationSnapshotSchema }) },
  'notification.all_read': { version: 1, read: { op: 'listNotifications' }, data: z.object({ memberId: z.string(), markedRead: z.number().int() }) },
  'notification.preferences_updated': {
    version: 1, read: { op: 'getNotificationPreferences' },
    data: z.object({ preferences: notificationPreferencesSchema, ...changeFields }),
  },
} as const satisfies Record<string, CatalogEntry>;
