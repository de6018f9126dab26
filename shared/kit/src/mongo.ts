import mongoose from 'mongoose';

/**
 * One connection per service database. `url` is MONGO_URL (a real replica set in production) or
 * the embedded server's URL in local runs and tests; `dbName` is the service's own database.
 */
export async function connectMongo(url: string, dbName: string): Promise<mongoose.Connection> {
  const conn = mongoose.createConnection(url, { dbName, autoIndex: true, autoCreate: true, serverSelectionTimeoutMS: 10_000 });
  await conn.asPromise();
  return conn;
}
