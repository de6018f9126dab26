import type { ServiceDeps } from '@helpdesk/kit';
import { createDeliveryWorker } from './delivery/worker';
import type { WebhooksModels } from './collections';
import type { WebhookSettings } from './settings';
import { deliveryRules } from './webhooks/deliveries/rules';
import { webhookRules } from './webhooks/rules';

/**
 * Every resource's rules and the delivery worker, wired once; handlers, consumers and the worker share
 * them. The worker is built here (no I/O) and started by the service's `workers`: the rules that
 * create deliveries hand them to it, and it asks the webhook rules to disable a webhook.
 */
export function webhooksRules({ conn, models, logger, soleInstance, secrets }: ServiceDeps<WebhooksModels>, settings: WebhookSettings) {
  // Signing secrets are kept sealed (docs/adr/0067): no key, no service.
  if (!secrets) throw new Error('the webhooks service needs the key of secrets at rest (SECRETS_KEY)');
  const webhooks = webhookRules({ conn, models, settings, soleInstance, secrets });
  const worker = createDeliveryWorker({ models, settings, logger, disable: webhooks.disable, secrets });
  const deliveries = deliveryRules({ conn, models, webhooks, dispatch: worker });
  return { webhooks, deliveries, worker, secrets };
}
export type WebhooksRules = ReturnType<typeof webhooksRules>;
