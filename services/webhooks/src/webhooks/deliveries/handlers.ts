import { WEBHOOKS } from '@helpdesk/contracts';
import { handlersFor } from '@helpdesk/kit';
import type { WebhooksRules } from '../../rules';

/** `/teams/{teamId}/webhooks/{webhookId}/deliveries…`: the delivery log of one webhook, and redelivery. */
export const deliveryHandlers = ({ deliveries }: WebhooksRules) =>
  handlersFor(WEBHOOKS)({
    listWebhookDeliveries: ({ ctx, params, query }) => deliveries.list(ctx, params.webhookId, query),
    getWebhookDelivery: ({ ctx, params }) => deliveries.get(ctx, params.webhookId, params.deliveryId),
    redeliverWebhookDelivery: ({ ctx, params }) => deliveries.redeliver(ctx, params.webhookId, params.deliveryId),
  });
