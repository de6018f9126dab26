import type mongoose from 'mongoose';
import type { mongo } from 'mongoose';
import type { Pagination } from '@helpdesk/contracts';
import { collectionOf, countAll, findAll, insertAll } from './lean-reads';
import { NEWEST_FIRST, pageOf, skipOf } from './pagination';
import { deferInsert, deferUpdateOne } from './unit-writes';

/**
 * A scoped handle: one collection bound to one scope (docs/adr/0065). Built only by the data layer
 * (./data-layer.ts: `scoped(models, scope)`), from a scope it cannot be built without. Every filter
 * gets the scope's fields added last (a filter naming another team or partition cannot widen it),
 * every inserted document gets them, every aggregate starts with a `$match` on them, every bulk
 * operation gets them in its filter or document; the driver fast paths (`lean…`) go through the same
 * handle. Its types leave the scope's fields out of what a caller writes (`InScope<T>`: naming
 * `teamId` or `mode` in a filter is a type error).
 */

/** A document as a service builds it: its team and partition come from the scope. */
export type Unscoped<T> = Omit<T, 'teamId' | 'mode'>;

/** The document type a handle's queries are typed with: the scope's fields cannot be named, the layer adds them. */
export type InScope<T> = Unscoped<T> & { teamId?: never; mode?: never };

/** A handle's mongoose filter on documents `T` (built apart from the call): the scope's fields cannot be named. */
export type ScopedFilter<T> = mongoose.QueryFilter<InScope<T>>;

/** A driver filter or document without the scope's fields. */
export type LeanFilter = mongo.Document & { teamId?: never; mode?: never };

/** One operation of a driver bulk write, its scope added by the handle. */
export type LeanBulkOp =
  | { insertOne: { document: LeanFilter } }
  | { updateOne: { filter: LeanFilter; update: mongo.Document | mongo.Document[]; upsert?: boolean } }
  | { updateMany: { filter: LeanFilter; update: mongo.Document | mongo.Document[]; upsert?: boolean } }
  | { replaceOne: { filter: LeanFilter; replacement: mongo.Document; upsert?: boolean } }
  | { deleteOne: { filter: LeanFilter } }
  | { deleteMany: { filter: LeanFilter } };

declare const STORED: unique symbol;
/** A handle whose stored documents are `T` (what kit's helpers infer their rows' type from). */
export type Stored<T> = { readonly [STORED]?: T };

type RawOf<M> = M extends mongoose.Model<infer T, any, any, any, any, any, any> ? T : never;

/** What a handle runs through mongoose (casting, defaults, validation, the tenancy plugin's hooks). */
type QueryMethod =
  | 'find' | 'findOne' | 'countDocuments' | 'exists' | 'distinct'
  | 'updateOne' | 'updateMany' | 'replaceOne' | 'deleteOne' | 'deleteMany'
  | 'findOneAndUpdate' | 'findOneAndDelete' | 'findOneAndReplace'
  | 'create' | 'insertMany' | 'bulkWrite' | 'aggregate';

/**
 * The driver fast paths (docs/adr/0043, 0049): for filters and documents whose values are stored as
 * sent (string ids, enum strings, numbers, dates, null), nothing cast, no default added.
 */
export interface LeanPaths<T> {
  /** Type only: the stored document type, for helpers that answer rows of it (findPage). */
  readonly [STORED]?: T;
  /** `find(filter, projection).sort().skip().limit().lean()` as one command. */
  leanFind<R = T>(filter: LeanFilter, opts?: mongo.FindOptions): Promise<R[]>;
  /** `findOne(filter, projection).lean()`. */
  leanFindOne<R = T>(filter: LeanFilter, opts?: mongo.FindOptions): Promise<R | null>;
  /** `countDocuments(filter)` as one `count` command (refused inside a transaction: no session). */
  leanCount(filter: LeanFilter): Promise<number>;
  /** The matching count and one page of rows (`sort`, default newest first), read at once. */
  leanPage<R = T>(
    filter: LeanFilter,
    q: { page: number; pageSize: number },
    opts?: { sort?: Record<string, 1 | -1>; projection?: mongo.Document },
  ): Promise<{ rows: R[]; pagination: Pagination }>;
  /** `insertMany(docs, { session, lean: true })` for rows built in full (docs/adr/0045). */
  leanInsert(docs: readonly LeanFilter[], opts?: { session?: mongo.ClientSession; atCommit?: boolean }): Promise<void>;
  /** The document after the update (upserted when `upsert`), or null. */
  leanFindOneAndUpdate<R = T>(filter: LeanFilter, update: mongo.Document, opts?: { session?: mongo.ClientSession; upsert?: boolean }): Promise<R | null>;
  /** `updateOne(filter, update, { session })` through the driver: nothing cast, no mongoose Query (a hot write). */
  leanUpdateOne(filter: LeanFilter, update: mongo.Document, opts?: { session?: mongo.ClientSession }): Promise<mongo.UpdateResult>;
  /**
   * `atCommit`, on `leanInsert` and here: in a `withOutbox` unit, the write goes out with the unit's
   * outbox rows in one command just before the commit (docs/adr/0078; nothing later in the unit may
   * read or write what it writes); elsewhere at once. Its errors then come from the unit's last write.
   */
  leanUpdateOneAtCommit(filter: LeanFilter, update: mongo.Document, opts: { session: mongo.ClientSession }): Promise<void>;
  /** One driver bulk write (ordered unless said otherwise). */
  leanBulkWrite(ops: readonly LeanBulkOp[], opts?: { session?: mongo.ClientSession; ordered?: boolean }): Promise<mongo.BulkWriteResult>;
}

/** One collection in one scope: mongoose's query methods (typed without the scope's fields) and the driver fast paths. */
export type ScopedModel<M extends mongoose.Model<any, any, any, any, any, any, any>> = Pick<mongoose.Model<InScope<RawOf<M>>>, QueryMethod> & LeanPaths<RawOf<M>>;

/** A scoped handle of any collection, as kit's helpers over "a scoped model" use it (pagination, search, export). */
export interface AnyScopedModel {
  find(filter?: any, projection?: any, options?: any): mongoose.Query<any[], any, object, any, 'find'>;
  findOne(filter?: any, projection?: any, options?: any): mongoose.Query<any, any, object, any, 'findOne'>;
  countDocuments(filter?: any, options?: any): mongoose.Query<number, any, object, any, 'countDocuments'>;
  updateMany(filter: any, update?: any, options?: any): mongoose.Query<any, any>;
  bulkWrite(ops: any[], options?: any): Promise<any>;
  aggregate<R = any>(pipeline?: any[], options?: any): mongoose.Aggregate<R[]>;
}

/** The fields a handle adds: `{teamId, mode}`, or a team-wide collection's `{teamId, mode: 'live'}`, `{teamId}` or `{_id: teamId}`. */
export type ScopeFields = Readonly<Record<string, string>>;

/** Adds the scope, last; one object per call, as the filter is mongoose's or the driver's to keep. */
const add = (fields: ScopeFields, doc: unknown): any => (doc ? { ...(doc as object), ...fields } : { ...fields });

function scopedBulkOp(fields: ScopeFields, op: Record<string, any>): Record<string, any> {
  for (const kind in op) {
    const body = op[kind];
    if (kind === 'insertOne') return { insertOne: { ...body, document: add(fields, body.document) } };
    return { [kind]: { ...body, filter: add(fields, body.filter) } };
  }
  return op;
}

/**
 * The handle's implementation. Methods live on the prototype (no closure per call); fixed arities,
 * so no rest array is built per query on the hot paths.
 */
class ScopedHandle {
  constructor(
    private readonly model: mongoose.Model<any>,
    private readonly fields: ScopeFields,
  ) {}

  find(filter?: unknown, projection?: unknown, options?: unknown) {
    return this.model.find(add(this.fields, filter), projection as any, options as any);
  }
  findOne(filter?: unknown, projection?: unknown, options?: unknown) {
    return this.model.findOne(add(this.fields, filter), projection as any, options as any);
  }
  countDocuments(filter?: unknown, options?: unknown) {
    return this.model.countDocuments(add(this.fields, filter), options as any);
  }
  exists(filter?: unknown) {
    return this.model.exists(add(this.fields, filter));
  }
  distinct(field: string, filter?: unknown, options?: unknown) {
    return this.model.distinct(field, add(this.fields, filter), options as any);
  }
  updateOne(filter: unknown, update?: unknown, options?: unknown) {
    return this.model.updateOne(add(this.fields, filter), update as any, options as any);
  }
  updateMany(filter: unknown, update?: unknown, options?: unknown) {
    return this.model.updateMany(add(this.fields, filter), update as any, options as any);
  }
  replaceOne(filter: unknown, replacement?: unknown, options?: unknown) {
    return this.model.replaceOne(add(this.fields, filter), add(this.fields, replacement), options as any);
  }
  deleteOne(filter?: unknown, options?: unknown) {
    return this.model.deleteOne(add(this.fields, filter), options as any);
  }
  deleteMany(filter?: unknown, options?: unknown) {
    return this.model.deleteMany(add(this.fields, filter), options as any);
  }
  findOneAndUpdate(filter: unknown, update?: unknown, options?: unknown) {
    return this.model.findOneAndUpdate(add(this.fields, filter), update as any, options as any);
  }
  findOneAndDelete(filter?: unknown, options?: unknown) {
    return this.model.findOneAndDelete(add(this.fields, filter), options as any);
  }
  findOneAndReplace(filter: unknown, replacement?: unknown, options?: unknown) {
    return this.model.findOneAndReplace(add(this.fields, filter), add(this.fields, replacement), options as any);
  }
  create(docs: unknown, options?: unknown) {
    const scopedDocs = Array.isArray(docs) ? docs.map((d) => add(this.fields, d)) : add(this.fields, docs);
    return options === undefined ? this.model.create(scopedDocs) : this.model.create(scopedDocs, options as any);
  }
  insertMany(docs: unknown, options?: unknown) {
    const scopedDocs = Array.isArray(docs) ? docs.map((d) => add(this.fields, d)) : add(this.fields, docs);
    return this.model.insertMany(scopedDocs, options as any);
  }
  bulkWrite(ops: Record<string, any>[], options?: unknown) {
    return this.model.bulkWrite(ops.map((op) => scopedBulkOp(this.fields, op)) as any, options as any);
  }
  /** The scope joins the pipeline's leading `$match` (one stage, as an index is chosen for it), or is one. */
  aggregate(pipeline: Record<string, any>[] = [], options?: unknown) {
    const [first, ...rest] = pipeline;
    const stages = first && '$match' in first && Object.keys(first).length === 1 ? [{ $match: add(this.fields, first.$match) }, ...rest] : [{ $match: { ...this.fields } }, ...pipeline];
    return this.model.aggregate(stages as any, options as any);
  }

  // ---------- the driver fast paths ----------

  leanFind(filter: LeanFilter, opts: mongo.FindOptions = {}) {
    return findAll(collectionOf(this.model), add(this.fields, filter), opts);
  }
  async leanFindOne(filter: LeanFilter, opts: mongo.FindOptions = {}) {
    const [first] = await findAll(collectionOf(this.model), add(this.fields, filter), { ...opts, limit: 1 });
    return first ?? null;
  }
  leanCount(filter: LeanFilter) {
    return countAll(collectionOf(this.model), add(this.fields, filter));
  }
  async leanPage(filter: LeanFilter, q: { page: number; pageSize: number }, opts: { sort?: Record<string, 1 | -1>; projection?: mongo.Document } = {}) {
    const c = collectionOf(this.model);
    const scopedFilter = add(this.fields, filter);
    const [total, rows] = await Promise.all([
      countAll(c, scopedFilter),
      findAll(c, scopedFilter, { projection: opts.projection, sort: opts.sort ?? NEWEST_FIRST, skip: skipOf(q.page, q.pageSize), limit: q.pageSize }),
    ]);
    return { rows, pagination: pageOf(q.page, q.pageSize, total) };
  }
  async leanInsert(docs: readonly LeanFilter[], opts: { session?: mongo.ClientSession; atCommit?: boolean } = {}) {
    const c = collectionOf(this.model);
    const rows = docs.map((d) => add(this.fields, d));
    if (opts.atCommit && deferInsert(c, rows, opts.session)) return;
    await insertAll(c, rows, opts.session);
  }
  leanFindOneAndUpdate(filter: LeanFilter, update: mongo.Document, opts: { session?: mongo.ClientSession; upsert?: boolean } = {}) {
    return collectionOf(this.model).findOneAndUpdate(add(this.fields, filter), update, {
      ...(opts.session ? { session: opts.session } : {}),
      upsert: opts.upsert ?? false,
      returnDocument: 'after',
    });
  }
  leanUpdateOne(filter: LeanFilter, update: mongo.Document, opts: { session?: mongo.ClientSession } = {}) {
    return collectionOf(this.model).updateOne(add(this.fields, filter), update, opts.session ? { session: opts.session } : {});
  }
  async leanUpdateOneAtCommit(filter: LeanFilter, update: mongo.Document, opts: { session: mongo.ClientSession }) {
    const c = collectionOf(this.model);
    const scopedFilter = add(this.fields, filter);
    if (!deferUpdateOne(c, scopedFilter, update, opts.session)) await c.updateOne(scopedFilter, update, { session: opts.session });
  }
  leanBulkWrite(ops: readonly LeanBulkOp[], opts: { session?: mongo.ClientSession; ordered?: boolean } = {}) {
    return collectionOf(this.model).bulkWrite(ops.map((op) => scopedBulkOp(this.fields, op)) as mongo.AnyBulkWriteOperation[], {
      ...(opts.session ? { session: opts.session } : {}),
      ordered: opts.ordered ?? true,
    });
  }
}

/** @internal the data layer's constructor of handles (./data-layer.ts); `fields` is the scope it adds. */
export const newScopedHandle = (model: mongoose.Model<any>, fields: ScopeFields): unknown => new ScopedHandle(model, fields);

/** @internal one driver bulk write whose operations each carry their own scope's fields (./data-layer.ts: bulkWriteInScopes). */
export const withScopeFields = scopedBulkOp;
