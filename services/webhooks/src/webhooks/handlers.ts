import { WEBHOOKS } from '@helpdesk/contracts';
import { handlersFor } from '@helpdesk/kit';
import type { WebhooksRules } from '../rules';

/** `/teams/{teamId}/webhooks…`: the team and partition come from the internal token, never the URL. */
export const webhookHandlers = ({ webhooks, deliveries }: WebhooksRules) =>
  handlersFor(WEBHOOKS)({
    listWebhooks: ({ ctx, query }) => webhooks.list(ctx, query),
    createWebhook: ({ ctx, body }) => webhooks.create(ctx, body),
    triggerWebhookTest: ({ ctx, body }) => deliveries.triggerTest(ctx, body.event),
    getWebhook: ({ ctx, params }) => webhooks.get(ctx, params.webhookId),
    updateWebhook: ({ ctx, params, body }) => webhooks.update(ctx, params.webhookId, body),
    deleteWebhook: ({ ctx, params }) => webhooks.remove(ctx, params.webhookId),
  });
