// connectMongo (docs/adr/0070): the driver's idle pool maintenance runs once per heartbeat instead of
// every 100 ms, MONGO_URL's options still win, and a database that goes away and comes back is
// noticed and reconnected to as before (readiness reads `readyState`).
import { startEmbeddedMongo, type EmbeddedMongo } from '@helpdesk/mongo-embedded';
import mongoose from 'mongoose';
import { connectMongo, IDLE_POOL_MAINTENANCE_MS, mongoClientFor, poolMaintenanceMs } from '../src/mongo';

/** The interval each of the client's server pools runs its maintenance at (the driver's internal option: this test fails if a driver upgrade renames it). */
function maintenanceOf(conn: mongoose.Connection): number[] {
  const servers = (conn.getClient() as unknown as { topology: { s: { servers: Map<string, { pool: { options: { minPoolSizeCheckFrequencyMS: number } } }> } } }).topology.s.servers;
  return [...servers.values()].map((s) => s.pool.options.minPoolSizeCheckFrequencyMS);
}

async function until(what: string, ok: () => boolean | Promise<boolean>, ms: number): Promise<number> {
  const t0 = Date.now();
  while (!(await ok())) {
    if (Date.now() - t0 > ms) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return Date.now() - t0;
}

let mongo: EmbeddedMongo;
const opened: mongoose.Connection[] = [];
const connect = async (url: string, db: string) => {
  const conn = await connectMongo(url, db);
  opened.push(conn);
  return conn;
};
const withQuery = (url: string, query: string) => `${url}${url.includes('?') ? '&' : '?'}${query}`;

beforeAll(async () => {
  mongo = await startEmbeddedMongo();
});
afterAll(async () => {
  await Promise.all(opened.map((c) => c.close().catch(() => undefined)));
  await mongo?.close();
});

test('a connection reads and writes its own database; its pools run their maintenance once per heartbeat', async () => {
  const conn = await connect(mongo.uri(), 'kit_mongo_a');
  expect(conn.readyState).toBe(1);
  expect(conn.name).toBe('kit_mongo_a');
  await conn.collection('things').insertOne({ _id: 'x' as any, n: 1 });
  expect(await conn.collection('things').findOne({ _id: 'x' as any })).toEqual({ _id: 'x', n: 1 });
  expect(await conn.getClient().db('kit_mongo_a').collection('things').countDocuments()).toBe(1);
  expect(maintenanceOf(conn)).toEqual([IDLE_POOL_MAINTENANCE_MS]);
  // Models build their indexes and collections as they did with mongoose's own client.
  expect(conn.config).toMatchObject({ autoIndex: true, autoCreate: true });
});

test("MONGO_URL's credentials authenticate against the same database as with mongoose's own client (the service's database is not the authSource)", async () => {
  for (const url of ['mongodb://u:p@127.0.0.1:1/admin', 'mongodb://u:p@127.0.0.1:1/', 'mongodb://u:p@127.0.0.1:1/users?authSource=auth']) {
    const ours = mongoClientFor(url, 'ticketing');
    const theirs = new mongoose.mongo.MongoClient(url);
    expect(ours.options.credentials?.source).toBe(theirs.options.credentials?.source);
    expect(ours.db().databaseName).toBe('ticketing');
  }
});

test("MONGO_URL's pool floor or idle limit keeps the driver's own cadence, and the floor is kept", async () => {
  expect(poolMaintenanceMs({})).toBe(IDLE_POOL_MAINTENANCE_MS);
  expect(poolMaintenanceMs({ minPoolSize: 0, maxIdleTimeMS: 0 })).toBe(IDLE_POOL_MAINTENANCE_MS);
  expect(poolMaintenanceMs({ maxIdleTimeMS: 30_000 })).toBeUndefined();
  const before = mongo.connectionsByTransport().tcp;
  const conn = await connect(withQuery(mongo.uri(), 'minPoolSize=3'), 'kit_mongo_b');
  expect(maintenanceOf(conn)).toEqual([100]);
  // The monitor's connection and the pool's three, without a command sent.
  await until('the pool fills to its floor', () => mongo.connectionsByTransport().tcp - before >= 4, 5_000);
});

test('a database that goes away is reported within a heartbeat and reconnected to when back, as with mongoose\'s own client', async () => {
  const first = await startEmbeddedMongo();
  const port = first.port;
  const conn = await connect(first.uri(), 'kit_mongo_c');
  // The path before (docs/adr/0070): mongoose building the client from the same options.
  const plain = await mongoose.createConnection(first.uri(), { dbName: 'kit_mongo_c', serverSelectionTimeoutMS: 10_000 }).asPromise();
  opened.push(plain);
  await conn.collection('things').insertOne({ n: 1 });
  await first.close();
  // Readiness (`readyState`) drops by the next heartbeat (10 s) at the latest.
  const [down, plainDown] = await Promise.all([until('disconnected', () => conn.readyState !== 1, 12_000), until('plain disconnected', () => plain.readyState !== 1, 12_000)]);
  const again = await startEmbeddedMongo({ port });
  try {
    const [up, plainUp] = await Promise.all([until('reconnected', () => conn.readyState === 1, 15_000), until('plain reconnected', () => plain.readyState === 1, 15_000)]);
    console.log(`MongoDB restart: readyState left 1 after ${down} ms (mongoose's client: ${plainDown} ms), back to 1 after ${up} ms (${plainUp} ms)`);
    await conn.collection('things').insertOne({ n: 2 });
    expect(await conn.collection('things').countDocuments()).toBe(1); // in memory: the restarted server is empty
  } finally {
    await Promise.all([conn.close(), plain.close()]);
    await again.close();
  }
}, 40_000);
