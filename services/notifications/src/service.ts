import { NOTIFICATIONS } from '@helpdesk/contracts';
import { defineService } from '@helpdesk/kit';
import { consumers } from './consumers';
import { startMailWorker, type MailWorkerSettings } from './mail/worker';
import { notificationsModels } from './models';
import { notificationHandlers } from './notifications/handlers';
import { notificationPreferenceHandlers } from './notifications/preferences/handlers';
import { notificationsRules } from './rules';

export interface NotificationsSettings {
  mail: MailWorkerSettings;
}

/** The notifications service: per-member notifications made from other services' events, and outgoing mail (docs/adr/0020). */
export const notificationsService = (settings: NotificationsSettings) =>
  defineService({
    name: 'notifications',
    operations: NOTIFICATIONS,
    models: notificationsModels,
    rules: notificationsRules,
    handlers: (rules) => ({ ...notificationHandlers(rules), ...notificationPreferenceHandlers(rules) }),
    consumers,
    workers: (_rules, { models, logger }) => [startMailWorker(models.mails, settings.mail, logger)],
  });
