import type { AddressInfo } from 'node:net';
import type mongoose from 'mongoose';
import { closeServer, connectMongo, listen, type InternalTokens, type Logger } from '@helpdesk/kit';
import { buildApp } from './app';
import { subscribeConsumers } from './consumers';
import { messageModel } from './messages/model';
import { startOutboxRelay, type EventBus, type OutboxRelay } from './outbox';
import { ticketModel } from './tickets/model';

export { buildApp } from './app';
export type { EventBus, OutboxRelay } from './outbox';

export interface TicketingOptions {
  mongoUrl: string;
  /** Default `ticketing`. */
  dbName?: string;
  bus: EventBus;
  tokens: InternalTokens;
  logger: Logger;
  /** Default 0 (any free port). */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
}

export interface RunningTicketing {
  /** `http://host:port` */
  url: string;
  conn: mongoose.Connection;
  relay: OutboxRelay;
  /** Stops taking requests, stops the relay (after it finishes its batch) and closes the connection. The bus is the caller's. */
  stop(): Promise<void>;
}

/** Connects, builds indexes, starts the outbox relay and the consumers, and listens. */
export async function startTicketing(opts: TicketingOptions): Promise<RunningTicketing> {
  const { logger } = opts;
  const conn = await connectMongo(opts.mongoUrl, opts.dbName ?? 'ticketing');
  let relay: OutboxRelay | undefined;
  try {
    await Promise.all([ticketModel(conn).init(), messageModel(conn).init()]);
    relay = startOutboxRelay({ conn, bus: opts.bus, logger });
    await subscribeConsumers(opts.bus, { conn, logger });
    const app = buildApp({ conn, tokens: opts.tokens, logger });
    const host = opts.host ?? '127.0.0.1';
    const server = await listen(app, opts.port ?? 0, host);
    const { port } = server.address() as AddressInfo;
    const started = relay;
    let stopping: Promise<void> | null = null;
    return {
      url: `http://${host}:${port}`,
      conn,
      relay: started,
      stop() {
        stopping ??= (async () => {
          await closeServer(server);
          await started.stop();
          await conn.close();
        })();
        return stopping;
      },
    };
  } catch (err) {
    await relay?.stop();
    await conn.close();
    throw err;
  }
}
