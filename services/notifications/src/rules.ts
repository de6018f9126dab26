import type { ServiceDeps } from '@helpdesk/kit';
import { mailRules } from './mail/rules';
import { teamMemberRules } from './members/rules';
import type { NotificationsModels } from './models';
import { notificationRules } from './notifications/rules';

/** Every resource's rules, wired once; handlers and consumers share them. */
export function notificationsRules({ conn, models }: ServiceDeps<NotificationsModels>) {
  const members = teamMemberRules({ models });
  const notifications = notificationRules({ conn, models, members });
  const mail = mailRules({ Mails: models.mails });
  return { members, notifications, mail };
}
export type NotificationsRules = ReturnType<typeof notificationsRules>;
