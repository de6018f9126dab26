import { WEBHOOKS } from '@helpdesk/contracts';
import { defineService } from '@helpdesk/kit';
import { consumers } from './consumers';
import { webhooksModels } from './collections';
import { webhooksRules } from './rules';
import type { WebhookSettings } from './settings';
import { deliveryHandlers } from './webhooks/deliveries/handlers';
import { webhookHandlers } from './webhooks/handlers';
import { sealOnStart } from './webhooks/secrets';

/** The webhooks service: subscriptions, the delivery log and redelivery, the consumer of every event and the delivery worker. */
export const webhooksService = (settings: WebhookSettings) =>
  defineService({
    name: 'webhooks',
    operations: WEBHOOKS,
    models: webhooksModels,
    rules: (deps) => webhooksRules(deps, settings),
    handlers: (rules) => ({ ...webhookHandlers(rules), ...deliveryHandlers(rules) }),
    consumers,
    workers: ({ worker, secrets }, { models, logger }) => [sealOnStart(models, secrets, logger), worker.start()],
  });
