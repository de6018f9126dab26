import { NOTIFICATIONS } from '@helpdesk/contracts';
import { defineService } from '@helpdesk/kit';
import { consumers } from './consumers';
import { notificationsModels } from './models';
import { notificationHandlers } from './notifications/handlers';
import { notificationsRules } from './rules';

/** The notifications service: per-member notifications made from other services' events (docs/adr/0020). */
export const notificationsService = defineService({
  name: 'notifications',
  operations: NOTIFICATIONS,
  models: notificationsModels,
  rules: notificationsRules,
  handlers: (rules) => notificationHandlers(rules),
  consumers,
});
