import type mongoose from 'mongoose';
import type { mongo } from 'mongoose';
import { collectionOf, type Scope } from '@helpdesk/kit';

/**
 * A payment's writes straight through the driver, in one scope, without mongoose's Query (option
 * merging, casting, the tenancy hooks, hydration): kit's lean reads (docs/adr/0043; `leanFind` and
 * `leanFindOne`, the session in their options, are what the game reads with) for the writes of the
 * game's hot path too (docs/adr/0044, 0047). Only for documents and filters the game builds in
 * full, with values stored as sent (string ids, numbers, dates): nothing is cast, no schema default
 * is added. The scope is spread last into every filter and inserted document, so a filter naming
 * another team or partition cannot widen it. Every call takes the transaction's session.
 */
type Doc = mongo.Document;

export function leanScoped(model: mongoose.Model<any>, scope: Scope) {
  const c = collectionOf(model);
  const s = { teamId: scope.teamId, mode: scope.mode };
  const f = (filter: Doc) => ({ ...filter, ...s });
  return {
    /** The document after the update (upserted when `upsert`), or null. */
    findOneAndUpdate: <T>(filter: Doc, update: Doc, session: mongo.ClientSession, opts: { upsert?: boolean } = {}) =>
      c.findOneAndUpdate(f(filter), update, { session, upsert: opts.upsert ?? false, returnDocument: 'after' }) as Promise<T | null>,
    insertMany: (docs: Doc[], session: mongo.ClientSession) => c.insertMany(docs.map((d) => ({ ...d, ...s })), { session }),
    /** `updateOne` operations only, in order, one command. */
    bulkUpdate: (ops: { filter: Doc; update: Doc; upsert?: boolean }[], session: mongo.ClientSession) =>
      c.bulkWrite(ops.map((o) => ({ updateOne: { filter: f(o.filter), update: o.update, upsert: o.upsert ?? false } })), { session, ordered: true }),
  };
}
