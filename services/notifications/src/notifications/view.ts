import type { NotificationSnapshot } from '@helpdesk/contracts';
import type { Unscoped } from '@helpdesk/kit';
import type { NotificationDoc } from './model';

/** The public Notification (and the event snapshot). */
export function notificationView(n: Unscoped<NotificationDoc>): NotificationSnapshot {
  return {
    id: n._id,
    object: 'notification',
    type: n.type,
    title: n.title,
    body: n.body,
    ticketId: n.ticketId,
    memberId: n.memberId,
    isRead: n.isRead,
    readAt: n.readAt ? new Date(n.readAt).toISOString() : null,
    createdAt: new Date(n.createdAt).toISOString(),
  };
}
