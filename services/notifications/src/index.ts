import { startService, type RunningService, type ServiceOptions } from '@helpdesk/kit';
import { EmbeddedEventLog } from './events/stream/log';
import { RedisEventLog } from './events/stream/redis-log';
import { createMailTransport } from './mail/transport';
import { DEFAULT_RETRY_DELAYS_MS } from './mail/worker';
import type { NotificationsRules } from './rules';
import { OpenStreams } from './events/stream/open-streams';
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
  /** The ticketing service (TICKETING_URL): checks a widget conversation's token when its stream opens (docs/adr/0040). */
  ticketingUrl?: string;
  /** The event stream's log in Redis Streams (shared by replicas); unset: an embedded log in this process (docs/adr/0021). */
  redisUrl?: string;
  /** Prefix of the stream's Redis keys (tests isolate runs with their own). */
  redisKeyPrefix?: string;
  /** Default 15 s. */
  streamHeartbeatMs?: number;
  /** Default 1 MiB. */
  streamMaxBufferedBytes?: number;
}
export type RunningNotifications = RunningService<NotificationsRules>;

export const DEFAULT_MAIL_FROM = 'Helpdesk <no-reply@helpdesk.local>';

/**
 * Connects (database `notifications` by default), builds indexes, starts the outbox relay, the consumers,
 * the mail worker and the stream's log, and listens. `stop()` ends the open event streams at once, then stops.
 */
export async function startNotifications(opts: NotificationsOptions): Promise<RunningNotifications> {
  const mail = {
    transport: createMailTransport({ smtpUrl: opts.smtpUrl, dataDir: opts.dataDir }),
    from: opts.mailFrom ?? DEFAULT_MAIL_FROM,
    workspaceUrl: opts.workspaceUrl,
    tokens: opts.tokens,
    pollIntervalMs: opts.mailPollIntervalMs ?? 30_000,
    retryDelaysMs: opts.mailRetryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS,
  };
  const open = new OpenStreams();
  const stream = {
    log: opts.redisUrl ? new RedisEventLog(opts.redisUrl, opts.logger, { keyPrefix: opts.redisKeyPrefix }) : new EmbeddedEventLog(),
    heartbeatMs: opts.streamHeartbeatMs ?? 15_000,
    maxBufferedBytes: opts.streamMaxBufferedBytes ?? 1024 * 1024,
    open,
  };
  const running = await startService(notificationsService({ mail, stream, ticketingUrl: opts.ticketingUrl }), opts);
  // Open streams end first: the server's close would otherwise wait for them (docs/adr/0021).
  return {
    ...running,
    stop: () => {
      open.endAll();
      return running.stop();
    },
  };
}
