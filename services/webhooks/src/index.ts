import { startService, type RunningService, type ServiceOptions } from '@helpdesk/kit';
import type { WebhooksRules } from './rules';
import { webhooksService } from './service';
import { resolveSettings, type WebhookSettings } from './settings';

export { webhooksService } from './service';
export type { WebhooksRules } from './rules';
export { DEFAULT_SETTINGS, MAX_TIMEOUT_MS, resolveSettings, type WebhookSettings } from './settings';
export { addressVerdict, LOOPBACK_SETTING, urlProblem } from './delivery/safety';

export interface WebhooksOptions extends ServiceOptions {
  /** Delivery settings; unset fields take the defaults (DEFAULT_SETTINGS). */
  settings?: Partial<WebhookSettings>;
}
export type RunningWebhooks = RunningService<WebhooksRules>;

/**
 * Connects (database `webhooks` by default), builds indexes, starts the outbox relay, the consumer of
 * every event and the delivery worker, and listens. Bad settings throw before anything starts.
 */
export function startWebhooks(opts: WebhooksOptions): Promise<RunningWebhooks> {
  return startService(webhooksService(resolveSettings(opts.settings)), opts);
}
