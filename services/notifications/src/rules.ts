import type { ServiceDeps } from '@helpdesk/kit';
import { teamMemberRules } from './members/rules';
import type { NotificationsModels } from './models';
import { notificationRules } from './notifications/rules';

/** Every resource's rules, wired once; handlers and consumers share them. */
export function notificationsRules({ conn, models }: ServiceDeps<NotificationsModels>) {
  const members = teamMemberRules({ models });
  const notifications = notificationRules({ conn, models, members });
  return { members, notifications };
}
export type NotificationsRules = ReturnType<typeof notificationsRules>;
