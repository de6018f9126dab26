import { teamAndPartition } from '@helpdesk/kit';
import type mongoose from 'mongoose';
import { deliveryModel } from './webhooks/deliveries/model';
import { quotaModel, webhookModel } from './webhooks/model';

/**
 * Every collection of the service, declared once with its kind (kit's data layer, docs/adr/0065);
 * kit builds their indexes at start-up. Reached through `scoped(models, scope)`; the delivery worker
 * claims due deliveries of every team through `acrossTeams(models).deliveries`.
 */
export const webhooksModels = (conn: mongoose.Connection) => ({
  webhooks: teamAndPartition(webhookModel(conn)),
  quotas: teamAndPartition(quotaModel(conn)),
  deliveries: teamAndPartition(deliveryModel(conn)),
});
export type WebhooksModels = ReturnType<typeof webhooksModels>;
