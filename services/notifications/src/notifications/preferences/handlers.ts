import { NOTIFICATIONS } from '@helpdesk/contracts';
import { handlersFor } from '@helpdesk/kit';
import type { NotificationsRules } from '../../rules';

/** `/teams/{teamId}/notifications/preferences`: a member's own notification settings. */
export const notificationPreferenceHandlers = ({ preferences }: NotificationsRules) =>
  handlersFor(NOTIFICATIONS)({
    getNotificationPreferences: ({ ctx, query }) => preferences.get(ctx, query.userId),
    updateNotificationPreferences: ({ ctx, body }) => preferences.update(ctx, body),
  });
