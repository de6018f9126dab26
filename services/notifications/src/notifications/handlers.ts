import { NOTIFICATIONS } from '@helpdesk/contracts';
import { handlersFor } from '@helpdesk/kit';
import type { NotificationsRules } from '../rules';

/** `/teams/{teamId}/notifications…`: the team and partition come from the internal token, never the URL. */
export const notificationHandlers = ({ notifications }: NotificationsRules) =>
  handlersFor(NOTIFICATIONS)({
    listNotifications: ({ ctx, query }) => notifications.list(ctx, query),
    getUnreadNotificationCount: ({ ctx, query }) => notifications.unreadCount(ctx, query.userId),
    markAllNotificationsRead: ({ ctx, body }) => notifications.markAllRead(ctx, body.userId),
    markNotificationRead: ({ ctx, params, body }) => notifications.markRead(ctx, params.notificationId, body.userId),
  });
