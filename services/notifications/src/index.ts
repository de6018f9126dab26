import { startService, type RunningService, type ServiceOptions } from '@helpdesk/kit';
import type { NotificationsRules } from './rules';
import { notificationsService } from './service';

export { notificationsService } from './service';
export type { NotificationsRules } from './rules';

export type NotificationsOptions = ServiceOptions;
export type RunningNotifications = RunningService<NotificationsRules>;

/** Connects (database `notifications` by default), builds indexes, starts the outbox relay and the consumers, and listens. */
export function startNotifications(opts: NotificationsOptions): Promise<RunningNotifications> {
  return startService(notificationsService, opts);
}
