import { startService, type RunningService, type ServiceOptions } from '@helpdesk/kit';
import { buildApp } from './app';
import { subscribeConsumers } from './consumers';
import { createDeliveryWorker } from './delivery/worker';
import { initModels } from './models';
import { resolveSettings, type WebhookSettings } from './settings';

export { buildApp } from './app';
export { DEFAULT_SETTINGS, MAX_TIMEOUT_MS, resolveSettings, type WebhookSettings } from './settings';

export interface WebhooksOptions extends ServiceOptions {
  /** Delivery settings; unset fields take the defaults (DEFAULT_SETTINGS). */
  settings?: Partial<WebhookSettings>;
}
export type RunningWebhooks = RunningService;

/**
 * Connects (database `webhooks` by default), builds indexes, starts the outbox relay, the consumer of
 * every event and the delivery worker, and listens.
 */
export function startWebhooks(opts: WebhooksOptions): Promise<RunningWebhooks> {
  const settings = resolveSettings(opts.settings);
  const worker = createDeliveryWorker({ settings, logger: opts.logger });
  return startService(
    {
      name: 'webhooks',
      init: initModels,
      subscribe: (bus, conn) => subscribeConsumers(bus, { conn, logger: opts.logger, dispatch: worker }),
      app: (conn) => buildApp({ conn, tokens: opts.tokens, logger: opts.logger, settings, dispatch: worker }),
      workers: (conn) => [worker.start(conn)],
    },
    opts,
  );
}
