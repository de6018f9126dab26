import type mongoose from 'mongoose';
import type { mongo } from 'mongoose';
import type { Pagination } from '@helpdesk/contracts';
import type { Scope } from './context';
import { collectionOf, countAll, findAll, insertAll } from './lean-reads';
import { NEWEST_FIRST, pageOf, skipOf } from './pagination';

/**
 * TRANSITIONAL (docs/adr/0065): the model-map `scoped` and the free lean functions services used
 * before kit's data layer, kept only while services move onto it one commit at a time; removed once
 * every service declares its collections.
 */

const FILTER_FIRST = new Set([
  'find', 'findOne', 'countDocuments', 'exists',
  'updateOne', 'updateMany', 'replaceOne', 'deleteOne', 'deleteMany',
  'findOneAndUpdate', 'findOneAndDelete', 'findOneAndReplace',
]);

const withScope = (scope: Scope, doc: unknown) => ({ ...(doc as object), teamId: scope.teamId, mode: scope.mode });

function scopedBulkOp(scope: Scope, op: Record<string, any>): Record<string, any> {
  const [kind, body] = Object.entries(op)[0];
  if (kind === 'insertOne') return { insertOne: { ...body, document: withScope(scope, body.document) } };
  return { [kind]: { ...body, filter: withScope(scope, body.filter) } };
}

/** @deprecated kit's data layer: `scoped(models, scope).<collection>`. */
export function scopedModel<M extends mongoose.Model<any>>(model: M, scope: Scope): M {
  const s: Scope = { teamId: scope.teamId, mode: scope.mode };
  return new Proxy(model, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function' || typeof prop !== 'string') return value;
      if (FILTER_FIRST.has(prop)) return (filter?: unknown, ...rest: unknown[]) => value.call(target, withScope(s, filter), ...rest);
      switch (prop) {
        case 'distinct':
          return (field: string, filter?: unknown, ...rest: unknown[]) => value.call(target, field, withScope(s, filter), ...rest);
        case 'create':
        case 'insertMany':
          return (docs: unknown, ...rest: unknown[]) => value.call(target, Array.isArray(docs) ? docs.map((d) => withScope(s, d)) : withScope(s, docs), ...rest);
        case 'bulkWrite':
          return (ops: Record<string, any>[], ...rest: unknown[]) => value.call(target, ops.map((op) => scopedBulkOp(s, op)), ...rest);
        case 'aggregate':
          return (pipeline: unknown[] = [], ...rest: unknown[]) => value.call(target, [{ $match: { ...s } }, ...pipeline], ...rest);
        default:
          return value.bind(target);
      }
    },
  });
}

/** @deprecated the model-map form of `scoped`. */
export function legacyScoped<M extends Record<string, mongoose.Model<any>>>(models: M, scope: Scope): M {
  const out: Record<string, mongoose.Model<any>> = {};
  for (const key of Object.keys(models)) Object.defineProperty(out, key, { get: () => scopedModel(models[key], scope), enumerable: true });
  return out as M;
}

/** @deprecated `scoped(models, scope).x.leanFind(filter, opts)`. */
export function leanFind<T>(model: mongoose.Model<any>, scope: Scope, filter: mongo.Document, opts: mongo.FindOptions = {}): Promise<T[]> {
  return findAll<T>(collectionOf(model), withScope(scope, filter), opts);
}

/** @deprecated `scoped(models, scope).x.leanFindOne(filter, opts)`. */
export async function leanFindOne<T>(model: mongoose.Model<any>, scope: Scope, filter: mongo.Document, opts: mongo.FindOptions = {}): Promise<T | null> {
  const [first] = await findAll<T>(collectionOf(model), withScope(scope, filter), { ...opts, limit: 1 });
  return first ?? null;
}

/** @deprecated `scoped(models, scope).x.leanCount(filter)`. */
export const leanCount = (model: mongoose.Model<any>, scope: Scope, filter: mongo.Document): Promise<number> => countAll(collectionOf(model), withScope(scope, filter));

/** @deprecated `scoped(models, scope).x.leanPage(filter, q, opts)`. */
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

/** @deprecated `scoped(models, scope).x.leanInsert(docs, { session })`. */
export async function leanInsert(model: mongoose.Model<any>, docs: readonly mongo.Document[], opts: { scope?: Scope; session?: mongoose.ClientSession } = {}): Promise<void> {
  await insertAll(collectionOf(model), opts.scope ? docs.map((d) => withScope(opts.scope!, d)) : (docs as mongo.Document[]), opts.session);
}
