import { NOTIFICATIONS, WIDGET_STREAM } from '@helpdesk/contracts';
import { acrossTeams, defineService, onEvery } from '@helpdesk/kit';
import { consumers } from './consumers';
import { eventStreamHandlers, type StreamSettings } from './events/stream/handlers';
import { streamableOf, type EventLog } from './events/stream/log';
import { widgetStreamHandlers } from './events/stream/widget-handlers';
import { emailReplyConsumers } from './mail/replies';
import { startMailWorker, type MailWorkerSettings } from './mail/worker';
import { notificationsModels } from './models';
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
    // Every event goes into the stream's log as well (trigger-test's as the test event it sent).
    consumers: (rules, deps) => [
      ...consumers(rules, deps),
      // Agents' replies on email tickets, mailed to the customer (docs/adr/0041).
      ...(settings.ticketingUrl ? emailReplyConsumers(deps.conn, rules.mail, settings.ticketingUrl, settings.mail.tokens) : []),
      onEvery('#', (event) => settings.stream.log.append(streamableOf(event))),
    ],
    workers: (rules, { models, logger }) => [startMailWorker(acrossTeams(models).mails, settings.mail, rules.mail.queued, logger), { stop: () => settings.stream.log.close() }],
  });
