import type { Express } from 'express';
import type mongoose from 'mongoose';
import { createServiceApp, type InternalTokens, type Logger } from '@helpdesk/kit';
import { customerRoutes } from './customers/routes';
import { groupRoutes } from './groups/routes';
import { internalRoutes } from './internal/routes';
import { memberRoutes } from './members/routes';
import { servicesOf } from './services';
import { statusRoutes } from './statuses/routes';

export interface AppDeps {
  conn: mongoose.Connection;
  tokens: InternalTokens;
  logger: Logger;
}

/** Builds the express app from its parts; no I/O happens here. */
export function buildApp(deps: AppDeps): Express {
  const s = servicesOf(deps.conn);
  return createServiceApp({
    name: 'customers',
    logger: deps.logger,
    tokens: deps.tokens,
    ready: () => deps.conn.readyState === 1,
    routes: (app) => {
      app.use('/teams/:teamId/customers', customerRoutes(s.customers));
      app.use('/teams/:teamId/customer-groups/:groupId/members', memberRoutes(s.members));
      app.use('/teams/:teamId/customer-groups', groupRoutes(s.groups));
      app.use('/teams/:teamId/customer-statuses', statusRoutes(s.statuses));
      app.use('/internal', internalRoutes(s.customers));
    },
  });
}
