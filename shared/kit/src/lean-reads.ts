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

/** `model.find(filter, projection).sort().skip().limit().lean()` in one scope. */
export function leanFind<T>(model: mongoose.Model<any>, scope: Scope, filter: mongo.Document, opts: mongo.FindOptions = {}): Promise<T[]> {
  return collectionOf(model).find(withScope(scope, filter), opts).toArray() as Promise<T[]>;
}

/** `model.findOne(filter, projection).lean()` in one scope. */
export function leanFindOne<T>(model: mongoose.Model<any>, scope: Scope, filter: mongo.Document, opts: mongo.FindOptions = {}): Promise<T | null> {
  return collectionOf(model).findOne(withScope(scope, filter), opts) as Promise<T | null>;
}

/** `model.countDocuments(filter)` in one scope. */
export function leanCount(model: mongoose.Model<any>, scope: Scope, filter: mongo.Document): Promise<number> {
  return collectionOf(model).countDocuments(withScope(scope, filter));
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
 * A duplicate key fails as the driver reports it (code 11000), as through mongoose.
 */
export async function leanInsert(
  model: mongoose.Model<any>,
  docs: readonly mongo.Document[],
  opts: { scope?: Scope; session?: mongoose.ClientSession } = {},
): Promise<void> {
  const { scope, session } = opts;
  await collectionOf(model).insertMany(scope ? docs.map((d) => withScope(scope, d)) : (docs as mongo.Document[]), session ? { session } : {});
}
