import type mongoose from 'mongoose';
import type { mongo } from 'mongoose';

/**
 * The driver fast paths (docs/adr/0043, 0049): reads and writes straight through the driver, without
 * mongoose's Query (option merging, filter casting, the tenancy hooks, result handling). They answer
 * what `.lean()` answers, for filters whose values are stored as sent (string ids, enum strings, null):
 * nothing is cast. Services reach them only through a scoped handle (./scoped.ts: `leanFind`,
 * `leanInsert`, `leanBulkWrite` …), which adds the scope last; these functions take a filter that
 * already carries it.
 */
const collections = new WeakMap<mongoose.Model<any>, mongo.Collection>();

/**
 * The driver's collection behind a model (cached per model). Kit's data layer and its tests use it;
 * a service's code never does (eslint.config.mjs refuses it under services/*\/src).
 */
export function collectionOf(model: mongoose.Model<any>): mongo.Collection {
  let c = collections.get(model);
  if (!c) {
    const db = model.db.db;
    if (!db) throw new Error(`${model.modelName}: not connected`);
    c = db.collection(model.collection.collectionName);
    collections.set(model, c);
  }
  return c;
}

/** The options the one-command read below understands; anything else takes the driver's cursor. */
const COMMAND_FIND_OPTIONS = new Set(['projection', 'sort', 'skip', 'limit', 'session']);
/** Documents the one-command read asks for when the caller sets no limit. */
const FIRST_BATCH = 1_000;

/**
 * A find as ONE `find` command (docs/adr/0049): the driver's FindCursor (option building, cursor
 * state, its session and pool events) costs more CPU than the query itself on a hot read. The answer
 * is the command's first batch when that is the whole result (the server closed the cursor). When it
 * is not (more than the batch, or past the 16 MiB reply), the cursor is closed and the read runs again
 * through the driver's cursor, so the answer is always complete.
 */
export async function findAll<T>(c: mongo.Collection, filter: mongo.Document, opts: mongo.FindOptions): Promise<T[]> {
  for (const k in opts) {
    if ((opts as Record<string, unknown>)[k] !== undefined && !COMMAND_FIND_OPTIONS.has(k)) return c.find(filter, opts).toArray() as Promise<T[]>;
  }
  const { projection, sort, skip, limit, session } = opts;
  const batch = limit && limit > 0 ? limit : FIRST_BATCH;
  const cmd: mongo.Document = { find: c.collectionName, filter, batchSize: batch };
  if (projection) cmd.projection = projection;
  if (sort) cmd.sort = sort;
  if (skip) cmd.skip = skip;
  if (limit) cmd.limit = limit;
  const reply = await c.db.command(cmd, session ? { session } : {});
  const cursor = reply.cursor as { id: unknown; firstBatch: T[] };
  if (isZero(cursor.id)) return cursor.firstBatch;
  await c.db.command({ killCursors: c.collectionName, cursors: [cursor.id] }, session ? { session } : {}).catch(() => undefined);
  return c.find(filter, opts).toArray() as Promise<T[]>;
}

/** A cursor id: a number, or a bson Long when it does not fit one. */
const isZero = (id: unknown): boolean => id === 0 || (typeof id === 'object' && id !== null && 'isZero' in id && (id as { isZero(): boolean }).isZero());

/**
 * `countDocuments(filter)` as ONE `count` command (docs/adr/0049) instead of the driver's aggregation
 * cursor. A `count` with a query counts the matching documents exactly, as countDocuments does (only a
 * `count` without a query reads collection metadata); it is refused inside transactions, which is why
 * it takes no session.
 */
export async function countAll(c: mongo.Collection, filter: mongo.Document): Promise<number> {
  const reply = await c.db.command({ count: c.collectionName, query: filter });
  return Number(reply.n);
}

/**
 * `insertMany(rows, { session, lean: true })` straight through the driver (docs/adr/0045): for rows
 * built in full by the caller (nothing to cast, default or validate), as the hot writes are. A
 * duplicate key fails as the driver reports it (code 11000, with the index's `keyPattern`).
 */
export async function insertAll(c: mongo.Collection, rows: mongo.Document[], session: mongo.ClientSession | undefined): Promise<void> {
  const options = session ? { session } : {};
  // One row as one insert command: insertMany is a bulk write, which serialises each row to size
  // its batches and builds a bulk result; the same command, a third of the work in process.
  if (rows.length === 1) await c.insertOne(rows[0], options);
  else await c.insertMany(rows, options);
}
