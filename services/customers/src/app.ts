import type { Express } from 'express';
import type mongoose from 'mongoose';
import { createServiceApp, type InternalTokens, type Logger } from '@helpdesk/kit';

export interface AppDeps {
  conn: mongoose.Connection;
  tokens: InternalTokens;
  logger: Logger;
}

/** Builds the express app from its parts; no I/O happens here. */
export function buildApp(deps: AppDeps): Express {
  return createServiceApp({
    name: 'customers',
    logger: deps.logger,
    tokens: deps.tokens,
    ready: () => deps.conn.readyState === 1,
    routes: () => {},
  });
}
