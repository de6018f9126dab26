import { startService, type RunningService, type ServiceOptions } from '@helpdesk/kit';
import { createMailTransport } from './mail/transport';
import { DEFAULT_RETRY_DELAYS_MS } from './mail/worker';
import type { NotificationsRules } from './rules';
import { notificationsService } from './service';

export { notificationsService } from './service';
export type { NotificationsRules } from './rules';

export interface NotificationsOptions extends ServiceOptions {
  /** The workspace service (invitation links, and their messages' outcome). */
  workspaceUrl: string;
  /** SMTP (`smtp://…`, Mailpit in docker-compose); unset: one `.eml` file per message under `<dataDir>/mail`. */
  smtpUrl?: string;
  dataDir: string;
  /** Default `Helpdesk <no-reply@helpdesk.local>`. */
  mailFrom?: string;
  mailPollIntervalMs?: number;
  mailRetryDelaysMs?: number[];
}
export type RunningNotifications = RunningService<NotificationsRules>;

export const DEFAULT_MAIL_FROM = 'Helpdesk <no-reply@helpdesk.local>';

/** Connects (database `notifications` by default), builds indexes, starts the outbox relay, the consumers and the mail worker, and listens. */
export function startNotifications(opts: NotificationsOptions): Promise<RunningNotifications> {
  const mail = {
    transport: createMailTransport({ smtpUrl: opts.smtpUrl, dataDir: opts.dataDir }),
    from: opts.mailFrom ?? DEFAULT_MAIL_FROM,
    workspaceUrl: opts.workspaceUrl,
    tokens: opts.tokens,
    pollIntervalMs: opts.mailPollIntervalMs ?? 1_000,
    retryDelaysMs: opts.mailRetryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS,
  };
  return startService(notificationsService({ mail }), opts);
}
