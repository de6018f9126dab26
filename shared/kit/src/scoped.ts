import type mongoose from 'mongoose';
import type { Scope } from './context';

/**
 * Tenancy the compiler and the code can see: `scoped(models, scope)` gives every model of a service
 * bound to one team and partition. Its queries, updates and deletes get `{teamId, mode}` added to
 * their filter, its inserts to their documents, its aggregates a leading `$match`; nothing in a
 * service spreads the scope by hand. The model's own types are kept, so queries read as mongoose.
 * Anything else goes to the model unchanged, where kit's tenancy plugin still refuses an unscoped query.
 */

/** Methods whose first argument is the filter. */
const FILTER_FIRST = new Set([
  'find', 'findOne', 'countDocuments', 'exists',
  'updateOne', 'updateMany', 'replaceOne', 'deleteOne', 'deleteMany',
  'findOneAndUpdate', 'findOneAndDelete', 'findOneAndReplace',
]);

/** A document as a service builds it: its team and partition come from the scope. */
export type Unscoped<T> = Omit<T, 'teamId' | 'mode'>;

const withScope = (scope: Scope, doc: unknown) => ({ ...(doc as object), teamId: scope.teamId, mode: scope.mode });

function scopedBulkOp(scope: Scope, op: Record<string, any>): Record<string, any> {
  const [kind, body] = Object.entries(op)[0];
  if (kind === 'insertOne') return { insertOne: { ...body, document: withScope(scope, body.document) } };
  return { [kind]: { ...body, filter: withScope(scope, body.filter) } };
}

/** One model bound to one scope (same type as the model: a drop-in for it). */
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
          return (docs: unknown, ...rest: unknown[]) =>
            value.call(target, Array.isArray(docs) ? docs.map((d) => withScope(s, d)) : withScope(s, docs), ...rest);
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

/**
 * Per models object, a prototype whose getters bind each model when first used (a request usually
 * touches one or two of them); built once, so `scoped` costs one small object per call.
 */
const prototypes = new WeakMap<object, object>();
interface ScopedState { scope: Scope; bound: Map<string, mongoose.Model<any>> }
const STATE = Symbol('scoped');

function prototypeOf(models: Record<string, mongoose.Model<any>>): object {
  let proto = prototypes.get(models);
  if (!proto) {
    proto = {};
    for (const key of Object.keys(models)) {
      Object.defineProperty(proto, key, {
        enumerable: true,
        get(this: { [STATE]: ScopedState }) {
          const st = this[STATE];
          let m = st.bound.get(key);
          if (!m) st.bound.set(key, (m = scopedModel(models[key], st.scope)));
          return m;
        },
      });
    }
    prototypes.set(models, proto);
  }
  return proto;
}

/** Every model of a service, bound to one scope: `const db = scoped(models, ctx); db.tickets.findOne({_id})`. */
export function scoped<M extends Record<string, mongoose.Model<any>>>(models: M, scope: Scope): M {
  const out = Object.create(prototypeOf(models)) as M & { [STATE]: ScopedState };
  out[STATE] = { scope, bound: new Map() };
  return out;
}
