import type { Express } from 'express';
import type mongoose from 'mongoose';
import { createServiceApp, type InternalTokens, type Logger } from '@helpdesk/kit';
import { ticketModel } from './tickets/model';
import { messageModel } from './messages/model';
import { createTicketService } from './tickets/service';
import { createMessageService } from './messages/service';
import { ticketRoutes } from './tickets/routes';
import { messageRoutes } from './messages/routes';
import { customersClient } from './customers/client';
import { customerRefModel } from './customers/model';
import { createCustomerRefs } from './customers/service';

export interface AppDeps {
  conn: mongoose.Connection;
  tokens: InternalTokens;
  logger: Logger;
  /** The customers service's base URL (its internal endpoints). */
  customersUrl: string;
}

/** The models and rules every part of the service shares (routes and consumers alike). */
export function ticketingDeps(conn: mongoose.Connection) {
  const base = { conn, tickets: ticketModel(conn), messages: messageModel(conn), refs: customerRefModel(conn) };
  return { ...base, customerRefs: createCustomerRefs(base) };
}

/** Builds the express app from its parts; no I/O happens here. */
export function buildApp(deps: AppDeps): Express {
  const services = ticketingDeps(deps.conn);
  const tickets = createTicketService(services);
  const messages = createMessageService(services);
  return createServiceApp({
    name: 'ticketing',
    logger: deps.logger,
    tokens: deps.tokens,
    ready: () => deps.conn.readyState === 1,
    routes: (app) => {
      app.use('/teams/:teamId/tickets/:ticketId/messages', messageRoutes(messages));
      app.use('/teams/:teamId/tickets', ticketRoutes(tickets, customersClient(deps.customersUrl)));
    },
  });
}
