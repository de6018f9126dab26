import { NOTIFICATIONS, WIDGET_STREAM } from '@helpdesk/contracts';
import { acrossTeams, defineService } from '@helpdesk/kit';
import { allConsumers } from './consumers';
import { eventStreamHandlers } from './events/stream/handlers';
import type { EventLog } from './events/stream/log';
import type { StreamSettings } from './events/stream/serve';
import { widgetStreamHandlers } from './events/stream/widget-handlers';
import { startMailWorker, type MailWorkerSettings } from './mail/worker';
import { notificationsModels } from './collections';
import { notificationHandlers } from './notifications/handlers';
import { notificationPreferenceHandlers } from './notifications/preferences/handlers';
import { notificationsRules } from './rules';

export interface NotificationsSettings {
  mail: MailWorkerSettings;
  /** The event stream's retained log (embedded or Redis Streams) and its connection settings (docs/adr/0021). */
  stream: StreamSettings & { log: EventLog };
  /** The ticketing service, which checks a widget conversation's token when its stream opens (docs/adr/0040). */
  ticketingUrl?: string;
}

/**
 * The notifications service: per-member notifications made from other services' events, outgoing
 * mail (docs/adr/0020), and the real-time event stream (docs/adr/0021).
 */
export const notificationsService = (settings: NotificationsSettings) =>
  defineService({
    name: 'notifications',
    operations: { ...NOTIFICATIONS, ...WIDGET_STREAM },
    models: notificationsModels,
    rules: notificationsRules,
    handlers: (rules) => ({ ...notificationHandlers(rules), ...notificationPreferenceHandlers(rules), ...eventStreamHandlers(settings.stream.log, settings.stream), ...widgetStreamHandlers(settings.stream.log, settings.stream, settings.ticketingUrl) }),
    consumers: allConsumers({ ticketingUrl: settings.ticketingUrl, tokens: settings.mail.tokens, streamLog: settings.stream.log }),
    workers: (rules, { models, logger }) => [startMailWorker(acrossTeams(models).mails, settings.mail, rules.mail.queued, logger), { stop: () => settings.stream.log.close() }],
  });
