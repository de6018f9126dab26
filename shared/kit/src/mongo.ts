import mongoose from 'mongoose';

/**
 * How often the driver's connection pool runs its maintenance (pruning perished connections, topping
 * up to `minPoolSize`) when neither applies: with `minPoolSize` and `maxIdleTimeMS` 0 (the
 * driver's defaults, and the platform's) the round finds nothing to do, but the driver runs it every
 * 100 ms per server forever, half of an idle process's CPU (docs/adr/0070). Once per heartbeat
 * instead: a connection a pool clear left stale is also dropped when it is next checked out.
 */
export const IDLE_POOL_MAINTENANCE_MS = 10_000;

/**
 * The driver options every process's MongoClient gets, on top of what MONGO_URL's query string says
 * (which wins: `heartbeatFrequencyMS`, `serverMonitoringMode`, `minPoolSize`, `maxIdleTimeMS`,
 * … are the operator's override). Heartbeats stay the driver's 10 s: they bound how soon /readyz
 * reports a database that went away while the process is idle (docs/operating.md).
 */
export const MONGO_CLIENT_OPTIONS = { serverSelectionTimeoutMS: 10_000 } as const;

/**
 * The pool maintenance interval for a client's parsed options: IDLE_POOL_MAINTENANCE_MS unless the
 * URL asks for a pool floor or an idle limit, which the driver's own 100 ms cadence serves.
 */
export function poolMaintenanceMs(options: { minPoolSize?: number; maxIdleTimeMS?: number }): number | undefined {
  return (options.minPoolSize ?? 0) > 0 || (options.maxIdleTimeMS ?? 0) > 0 ? undefined : IDLE_POOL_MAINTENANCE_MS;
}

/**
 * The MongoClient of a service database, not yet connected: MONGO_URL's options as the driver parses
 * them (credentials' default authSource from the URL's path, as before), the pool maintenance interval
 * above, and `dbName` as the database `client.db()` hands out. That one is set after the parse, as
 * mongoose does with its own client (it passes dbName to `client.db`, never to the client, whose
 * `dbName` option would also become the authSource of credentials in the URL).
 */
export function mongoClientFor(url: string, dbName: string): mongoose.mongo.MongoClient {
  const client = new mongoose.mongo.MongoClient(url, { ...MONGO_CLIENT_OPTIONS, driverInfo: { name: 'Mongoose', version: mongoose.version } });
  const options = client.options as { dbName: string; minPoolSizeCheckFrequencyMS?: number };
  options.dbName = dbName;
  const maintenance = poolMaintenanceMs(client.options);
  if (maintenance !== undefined) options.minPoolSizeCheckFrequencyMS = maintenance;
  return client;
}

/**
 * One connection per service database. `url` is MONGO_URL (a real replica set in production) or
 * the embedded server's URL in local runs and tests; `dbName` is the service's own database.
 * The MongoClient is built here (`mongoClientFor`) rather than by mongoose so that its pool
 * maintenance interval (an option the driver reads from the client's parsed options but does not
 * accept from callers) is set before the first pool exists; every pool the client opens later (a new
 * replica-set member, a reconnect) inherits it. mongoose adopts the connected client.
 */
export async function connectMongo(url: string, dbName: string): Promise<mongoose.Connection> {
  const client = mongoClientFor(url, dbName);
  await client.connect();
  const conn = mongoose.createConnection();
  Object.assign(conn.config, { autoIndex: true, autoCreate: true });
  conn.setClient(client);
  return conn;
}
