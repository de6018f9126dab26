import type { Express } from 'express';
import type mongoose from 'mongoose';
import { createServiceApp, type InternalTokens, type Logger } from '@helpdesk/kit';
import { deliveryModel } from './deliveries/model';
import { deliveryRoutes } from './deliveries/routes';
import { createDeliveryService } from './deliveries/service';
import type { Dispatcher } from './delivery/dispatch';
import { DEFAULT_SETTINGS, type WebhookSettings } from './settings';

const NO_WORKER: Dispatcher = { kick: () => {}, reserve: () => null };
import { quotaModel, webhookModel } from './webhooks/model';
import { webhookRoutes } from './webhooks/routes';
import { createWebhookService } from './webhooks/service';

export interface AppDeps {
  conn: mongoose.Connection;
  tokens: InternalTokens;
  logger: Logger;
  settings?: WebhookSettings;
  /** The delivery worker (none: new deliveries go out at a worker's next poll). */
  dispatch?: Dispatcher;
}

/** Builds the express app from its parts; no I/O happens here. */
export function buildApp(deps: AppDeps): Express {
  const models = { conn: deps.conn, webhooks: webhookModel(deps.conn), quotas: quotaModel(deps.conn), deliveries: deliveryModel(deps.conn) };
  const webhooks = createWebhookService({ ...models, settings: deps.settings ?? DEFAULT_SETTINGS });
  const deliveries = createDeliveryService({ ...models, dispatch: deps.dispatch ?? NO_WORKER });
  return createServiceApp({
    name: 'webhooks',
    logger: deps.logger,
    tokens: deps.tokens,
    ready: () => deps.conn.readyState === 1,
    routes: (app) => {
      app.use('/teams/:teamId/webhooks/:webhookId/deliveries', deliveryRoutes(deliveries));
      app.use('/teams/:teamId/webhooks', webhookRoutes(webhooks, deliveries));
    },
  });
}
