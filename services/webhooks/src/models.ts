import type mongoose from 'mongoose';
import { deliveryModel, deliveryQueueModel } from './webhooks/deliveries/model';
import { quotaModel, webhookModel } from './webhooks/model';

/**
 * Every model of the service on its connection (kit builds their indexes at start-up). `deliveryQueue`
 * is the delivery worker's view of `deliveries`, deliberately NOT tenant-scoped (it claims due rows of
 * every team); it also carries the collection's indexes. Nothing reads it through `scoped(…)`.
 */
export const webhooksModels = (conn: mongoose.Connection) => ({
  webhooks: webhookModel(conn),
  quotas: quotaModel(conn),
  deliveries: deliveryModel(conn),
  deliveryQueue: deliveryQueueModel(conn),
});
export type WebhooksModels = ReturnType<typeof webhooksModels>;
