import type mongoose from 'mongoose';
import type { mongo } from 'mongoose';
import type { Pagination } from '@helpdesk/contracts';
import type { Scope } from './context';
import { NEWEST_FIRST, pageOf, skipOf } from './pagination';

/**
 * Reads (and inserts, leanInsert below) for hot paths (docs/adr/0043): scoped reads straight through the driver, without mongoose's
 * Query (option merging, filter casting, the tenancy hooks, result handling). They answer what
 * `.lean()` answers, for filters whose values are stored as sent (string ids, enum strings, null):
 * nothing is cast. The scope is added here, last, as `scoped` does; a filter cannot name another.
 */
const collections = new WeakMap<mongoose.Model<any>, mongo.Collection>();

/** The driver's collection behind a model (cached per model), for reads and writes that skip mongoose. */
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

const withScope = (scope: Scope, filter: mongo.Document): mongo.Document => ({ ...filter, teamId: scope.teamId, mode: scope.mode });

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
async function findAll<T>(c: mongo.Collection, filter: mongo.Document, opts: mongo.FindOptions): Promise<T[]> {
  if (!Object.entries(opts).every(([k, v]) => v === undefined || COMMAND_FIND_OPTIONS.has(k))) {
    return c.find(filter, opts).toArray() as Promise<T[]>;
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

/** `model.find(filter, projection).sort().skip().limit().lean()` in one scope. */
export function leanFind<T>(model: mongoose.Model<any>, scope: Scope, filter: mongo.Document, opts: mongo.FindOptions = {}): Promise<T[]> {
  return findAll<T>(collectionOf(model), withScope(scope, filter), opts);
}

/** `model.findOne(filter, projection).lean()` in one scope. */
export async function leanFindOne<T>(model: mongoose.Model<any>, scope: Scope, filter: mongo.Document, opts: mongo.FindOptions = {}): Promise<T | null> {
  const [first] = await findAll<T>(collectionOf(model), withScope(scope, filter), { ...opts, limit: 1 });
  return first ?? null;
}

/**
 * `model.countDocuments(filter)` in one scope, as ONE `count` command (docs/adr/0049) instead of the
 * driver's aggregation cursor. A `count` with a query counts the matching documents exactly, as
 * countDocuments does (only a `count` without a query reads collection metadata); it is refused inside
 * transactions, which is why leanCount takes no session.
 */
export async function leanCount(model: mongoose.Model<any>, scope: Scope, filter: mongo.Document): Promise<number> {
  const c = collectionOf(model);
  const reply = await c.db.command({ count: c.collectionName, query: withScope(scope, filter) });
  return Number(reply.n);
}

/** `findPage` through the driver: the matching count and one page of rows (`sort`, default newest first), read at once. */
export async function leanPage<T>(
  model: mongoose.Model<any>,
  scope: Scope,
  filter: mongo.Document,
  q: { page: number; pageSize: number },
  opts: { sort?: Record<string, 1 | -1>; projection?: mongo.Document } = {},
): Promise<{ rows: T[]; pagination: Pagination }> {
  const [total, rows] = await Promise.all([
    leanCount(model, scope, filter),
    leanFind<T>(model, scope, filter, { projection: opts.projection, sort: opts.sort ?? NEWEST_FIRST, skip: skipOf(q.page, q.pageSize), limit: q.pageSize }),
  ]);
  return { rows, pagination: pageOf(q.page, q.pageSize, total) };
}

/**
 * `model.insertMany(docs, { session, lean: true })` straight through the driver (docs/adr/0045): for
 * rows built in full by the caller (nothing to cast, default or validate), as the hot writes are.
 * With `scope`, each row gets the scope's `teamId` and `mode`, as a scoped model's insert adds them.
 * A duplicate key fails as the driver reports it (code 11000, with the index's `keyPattern`), as through mongoose.
 */
export async function leanInsert(
  model: mongoose.Model<any>,
  docs: readonly mongo.Document[],
  opts: { scope?: Scope; session?: mongoose.ClientSession } = {},
): Promise<void> {
  const { scope, session } = opts;
  const rows = scope ? docs.map((d) => withScope(scope, d)) : (docs as mongo.Document[]);
  const options = session ? { session } : {};
  // One row as one insert command: insertMany is a bulk write, which serialises each row to size
  // its batches and builds a bulk result; the same command, a third of the work in process.
  if (rows.length === 1) await collectionOf(model).insertOne(rows[0], options);
  else await collectionOf(model).insertMany(rows, options);
}
