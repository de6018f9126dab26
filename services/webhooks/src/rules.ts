import type { ServiceDeps } from '@helpdesk/kit';
import { createDeliveryWorker } from './delivery/worker';
import type { WebhooksModels } from './models';
import type { WebhookSettings } from './settings';
import { deliveryRules } from './webhooks/deliveries/rules';
import { webhookRules } from './webhooks/rules';

/**
 * Every resource's rules and the delivery worker, wired once; handlers, consumers and the worker share
 * them. The worker is built here (no I/O) and started by the service's `workers`: the rules that
 * create deliveries hand them to it, and it asks the webhook rules to disable a webhook.
 */
export function webhooksRules({ conn, models, logger, soleInstance }: ServiceDeps<WebhooksModels>, settings: WebhookSettings) {
  const webhooks = webhookRules({ conn, models, settings, soleInstance });
  const worker = createDeliveryWorker({ models, settings, logger, disable: webhooks.disable });
  const deliveries = deliveryRules({ conn, models, webhooks, dispatch: worker });
  return { webhooks, deliveries, worker };
}
export type WebhooksRules = ReturnType<typeof webhooksRules>;
