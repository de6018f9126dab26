import type { ServiceDeps } from '@helpdesk/kit';
import { mailRules } from './mail/rules';
import { teamMemberRules } from './members/rules';
import type { NotificationsModels } from './collections';
import { notificationPreferenceRules } from './notifications/preferences/rules';
import { notificationRules } from './notifications/rules';

/** Every resource's rules, wired once; handlers and consumers share them. */
export function notificationsRules({ conn, models }: ServiceDeps<NotificationsModels>) {
  const members = teamMemberRules({ models });
  const mail = mailRules({ models });
  const notifications = notificationRules({ conn, models, members, mail });
  const preferences = notificationPreferenceRules({ conn, members });
  return { members, notifications, mail, preferences };
}
export type NotificationsRules = ReturnType<typeof notificationsRules>;
