import { startService, type RunningService, type ServiceOptions } from '@helpdesk/kit';
import { buildApp } from './app';
import { initModels } from './models';
import { subscribeConsumers } from './consumers';
import { DEFAULT_SETTINGS, type WebhookSettings } from './settings';

export { buildApp } from './app';

export type { WebhookSettings } from './settings';

export interface WebhooksOptions extends ServiceOptions {
  settings?: Partial<WebhookSettings>;
}
export type RunningWebhooks = RunningService;

/** Connects (database `webhooks` by default), builds indexes, starts the outbox relay and the consumers, and listens. */
export function startWebhooks(opts: WebhooksOptions): Promise<RunningWebhooks> {
  const _settings: WebhookSettings = { ...DEFAULT_SETTINGS, ...opts.settings };
  return startService(
    {
      name: 'webhooks',
      init: initModels,
      subscribe: (bus, conn) => subscribeConsumers(bus, { conn, logger: opts.logger }),
      app: (conn) => buildApp({ conn, tokens: opts.tokens, logger: opts.logger }),
    },
    opts,
  );
}
