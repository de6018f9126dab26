import type mongoose from 'mongoose';
import { deliveryModel, deliveryQueueModel } from './deliveries/model';
import { quotaModel, webhookModel } from './webhooks/model';

/** Builds every model's indexes (called once at start-up, before requests and events). */
export async function initModels(conn: mongoose.Connection): Promise<void> {
  await Promise.all([webhookModel(conn).init(), quotaModel(conn).init(), deliveryModel(conn).init(), deliveryQueueModel(conn).init()]);
}
