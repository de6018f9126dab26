import { Router } from 'express';
import { parseInput, requireObjectBody, sendData } from '@helpdesk/kit';
import { readAccess, writeAccess } from '../access';
import type { DeliveryService } from '../deliveries/service';
import { createWebhookSchema, listWebhooksQuery, noQuery, triggerTestSchema, updateWebhookSchema } from './schema';
import type { WebhookService } from './service';

/** `/teams/:teamId/webhooks…`: the team and partition come from the internal token, never the URL. */
export function webhookRoutes(webhooks: WebhookService, deliveries: DeliveryService): Router {
  const r = Router({ mergeParams: true });

  r.get('/', async (req, res) => {
    const ctx = readAccess(res);
    const q = parseInput(listWebhooksQuery, { ...(req.query as Record<string, unknown>) });
    const { items, pagination } = await webhooks.list(ctx, q);
    sendData(res, items, { pagination });
  });

  r.post('/', async (req, res) => {
    const ctx = writeAccess(res);
    const input = parseInput(createWebhookSchema, requireObjectBody(req.body));
    sendData(res, await webhooks.create(ctx, input), { status: 201 });
  });

  r.post('/trigger-test', async (req, res) => {
    const ctx = writeAccess(res);
    const { event } = parseInput(triggerTestSchema, requireObjectBody(req.body));
    sendData(res, await deliveries.triggerTest(ctx, event));
  });

  r.get('/:webhookId', async (req, res) => {
    const ctx = readAccess(res);
    parseInput(noQuery, { ...(req.query as Record<string, unknown>) });
    sendData(res, await webhooks.get(ctx, req.params.webhookId));
  });

  r.patch('/:webhookId', async (req, res) => {
    const ctx = writeAccess(res);
    const input = parseInput(updateWebhookSchema, requireObjectBody(req.body));
    sendData(res, await webhooks.update(ctx, req.params.webhookId, input));
  });

  r.delete('/:webhookId', async (req, res) => {
    const ctx = writeAccess(res);
    sendData(res, await webhooks.remove(ctx, req.params.webhookId));
  });

  return r;
}
