import { Router } from 'express';
import { parseInput, requireObjectBody, sendData } from '@helpdesk/kit';
import { readAccess, writeAccess } from '../access';
import { noQuery } from '../webhooks/schema';
import { listDeliveriesQuery, redeliverSchema } from './schema';
import type { DeliveryService } from './service';

/** `/teams/:teamId/webhooks/:webhookId/deliveries…`: the delivery log of one webhook, and redelivery. */
export function deliveryRoutes(deliveries: DeliveryService): Router {
  const r = Router({ mergeParams: true });
  const webhookId = (params: Record<string, string>) => params.webhookId;

  r.get('/', async (req, res) => {
    const ctx = readAccess(res);
    const q = parseInput(listDeliveriesQuery, { ...(req.query as Record<string, unknown>) });
    const { items, pagination } = await deliveries.list(ctx, webhookId(req.params), q);
    sendData(res, items, { pagination });
  });

  r.get('/:deliveryId', async (req, res) => {
    const ctx = readAccess(res);
    parseInput(noQuery, { ...(req.query as Record<string, unknown>) });
    sendData(res, await deliveries.get(ctx, webhookId(req.params), req.params.deliveryId));
  });

  r.post('/:deliveryId/redeliver', async (req, res) => {
    const ctx = writeAccess(res);
    parseInput(redeliverSchema, requireObjectBody(req.body));
    sendData(res, await deliveries.redeliver(ctx, webhookId(req.params), req.params.deliveryId), { status: 202 });
  });

  return r;
}
