import type { Express } from 'express';
import type mongoose from 'mongoose';
import { createServiceApp, type InternalTokens, type Logger } from '@helpdesk/kit';
import { ticketModel } from './tickets/model';
import { messageModel } from './messages/model';
import { createTicketService } from './tickets/service';
import { createMessageService } from './messages/service';
import { ticketRoutes } from './tickets/routes';
import { messageRoutes } from './messages/routes';

export interface AppDeps {
  conn: mongoose.Connection;
  tokens: InternalTokens;
  logger: Logger;
}

/** Builds the express app from its parts; no I/O happens here. */
export function buildApp(deps: AppDeps): Express {
  const services = { conn: deps.conn, tickets: ticketModel(deps.conn), messages: messageModel(deps.conn) };
  const tickets = createTicketService(services);
  const messages = createMessageService(services);
  return createServiceApp({
    name: 'ticketing',
    logger: deps.logger,
    tokens: deps.tokens,
    ready: () => deps.conn.readyState === 1,
    routes: (app) => {
      app.use('/teams/:teamId/tickets/:ticketId/messages', messageRoutes(messages));
      app.use('/teams/:teamId/tickets', ticketRoutes(tickets));
    },
  });
}
