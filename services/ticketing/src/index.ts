import type mongoose from 'mongoose';
import { startService, type RunningService, type ServiceOptions } from '@helpdesk/kit';
import { buildApp } from './app';
import { subscribeConsumers } from './consumers';
import { messageModel } from './messages/model';
import { ticketModel } from './tickets/model';
import { customerRefModel } from './customers/model';

export { buildApp } from './app';
export type { EventBus, OutboxRelay } from './outbox';

export interface TicketingOptions extends ServiceOptions {
  /** The customers service's base URL (CUSTOMERS_URL): asked about a ticket's customer when it is created or moved. */
  customersUrl: string;
}
export type RunningTicketing = RunningService;

/** Connects (database `ticketing` by default), builds indexes, starts the outbox relay and the consumers, and listens. */
export function startTicketing(opts: TicketingOptions): Promise<RunningTicketing> {
  return startService(
    {
      name: 'ticketing',
      init: (conn: mongoose.Connection) => Promise.all([ticketModel(conn).init(), messageModel(conn).init(), customerRefModel(conn).init()]),
      subscribe: (bus, conn) => subscribeConsumers(bus, { conn, logger: opts.logger }),
      app: (conn) => buildApp({ conn, tokens: opts.tokens, logger: opts.logger, customersUrl: opts.customersUrl }),
    },
    opts,
  );
}
