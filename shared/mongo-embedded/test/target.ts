/**
 * Where the conformance tests run: a real MongoDB when MONGO_URL is set (it must be a replica set
 * or sharded cluster for the transaction tests), otherwise a fresh in-memory embedded server.
 */
import { randomBytes } from 'node:crypto';
import { Db, MongoClient } from 'mongodb';
import { EmbeddedMongo, EmbeddedMongoOptions, startEmbeddedMongo } from '../src';

export interface Target {
  /** A mongodb:// URL for `dbName` (suffixed to be unique on a shared real server). */
  uri(dbName: string): string;
  /** The database name actually used for `dbName`. */
  dbName(dbName: string): string;
  /** The embedded server, when the tests run against it. */
  embedded: EmbeddedMongo | null;
  close(): Promise<void>;
}

export const REAL = !!process.env.MONGO_URL;
/** EMBEDDED_TRANSPORT=in-process: the embedded server reached as the one-process platform reaches it. */
const IN_PROCESS = process.env.EMBEDDED_TRANSPORT === 'in-process';

export async function startTarget(opts: EmbeddedMongoOptions = {}): Promise<Target> {
  const suffix = randomBytes(4).toString('hex');
  const used = new Set<string>();
  if (process.env.MONGO_URL) {
    const base = new URL(process.env.MONGO_URL);
    const name = (db: string) => {
      const n = `${db}_${suffix}`;
      used.add(n);
      return n;
    };
    return {
      embedded: null,
      dbName: name,
      uri(db) {
        const u = new URL(base.toString());
        u.pathname = '/' + name(db);
        return u.toString();
      },
      async close() {
        const c = await MongoClient.connect(base.toString());
        for (const n of used) await c.db(n).dropDatabase();
        await c.close();
      },
    };
  }
  if (IN_PROCESS) {
    // As the one-process platform reaches it: in process, commands handed over directly (docs/adr/0052).
    const m = await startEmbeddedMongo({ unixSocket: true, inProcessClients: true, ...opts });
    return { embedded: m, dbName: (db) => db, uri: (db) => m.socketUri(db) ?? m.uri(db), close: () => m.close() };
  }
  const m = await startEmbeddedMongo(opts);
  return {
    embedded: m,
    dbName: (db) => db,
    uri: (db) => m.uri(db),
    close: () => m.close(),
  };
}

export interface TargetDb {
  target: Target;
  client: MongoClient;
  db: Db;
}

/**
 * A test file's target, one client and its database `name`: opened before the file's tests (then
 * handed to `ready`, which keeps them in the file's own variables) and closed after them.
 */
export function useTargetDb(name: string, ready: (t: TargetDb) => void | Promise<void>, timeoutMs = 60_000): void {
  let t: Partial<TargetDb> = {};
  beforeAll(async () => {
    t.target = await startTarget();
    t.client = await MongoClient.connect(t.target.uri(name));
    t.db = t.client.db(t.target.dbName(name));
    await ready(t as TargetDb);
  }, timeoutMs);
  afterAll(async () => {
    await t.client?.close();
    await t.target?.close();
    t = {};
  });
}
