import mongoose, { type Schema } from 'mongoose';
import { PARTITIONS } from '@helpdesk/contracts';

/**
 * Fail-closed tenancy for mongoose, the runtime net under kit's data layer (./data-layer.ts,
 * docs/adr/0065): every query, update, delete, count, aggregate and bulk write must name its scope
 * (as plain strings) or it throws before reaching the database.
 *
 * - `tenancyPlugin`: the rows carry `teamId` and `mode` (a team-and-partition collection, and a team-wide
 *   one kept under the live partition); unique indexes are declared with the scope first (`{teamId, mode, email}`).
 * - `teamTenancyPlugin`: a team-wide collection whose rows name only their team, in `teamId` or as their `_id`.
 */
export class TenancyError extends Error {}

const QUERY_OPS = [
  'find', 'findOne', 'countDocuments', 'distinct',
  'updateOne', 'updateMany', 'replaceOne', 'deleteOne', 'deleteMany',
  'findOneAndUpdate', 'findOneAndDelete', 'findOneAndReplace',
] as const;

type Check = (filter: Record<string, unknown> | undefined, where: string) => void;

const assertScoped: Check = (filter, where) => {
  if (!filter || typeof filter.teamId !== 'string' || (filter.mode !== 'test' && filter.mode !== 'live')) {
    throw new TenancyError(`tenancy: ${where} without a {teamId, mode} scope`);
  }
};

const assertTeam = (key: 'teamId' | '_id'): Check => (filter, where) => {
  if (!filter || typeof filter[key] !== 'string') throw new TenancyError(`tenancy: ${where} without its team (${key})`);
};

function guard(schema: Schema, check: Check): void {
  for (const op of QUERY_OPS) {
    schema.pre(op, function (this: mongoose.Query<unknown, unknown>) {
      check(this.getFilter() as Record<string, unknown>, `${op} on ${this.model.modelName}`);
    });
  }
  schema.pre('aggregate', function (this: mongoose.Aggregate<unknown>) {
    const first = this.pipeline()[0] as { $match?: Record<string, unknown> } | undefined;
    check(first?.$match, 'aggregate (first stage must $match the scope)');
  });
  // mongoose runs model-level bulkWrite middleware; its typings do not list the hook name.
  (schema as any).pre('bulkWrite', function (ops: mongoose.AnyBulkWriteOperation[]) {
    for (const op of ops ?? []) {
      const body = Object.values(op)[0] as { filter?: Record<string, unknown>; document?: Record<string, unknown> };
      if ('insertOne' in op) check(body.document, 'bulkWrite insertOne');
      else check(body.filter, `bulkWrite ${Object.keys(op)[0]}`);
    }
  });
}

export function tenancyPlugin(schema: Schema): void {
  schema.add({
    teamId: { type: String, required: true, immutable: true },
    mode: { type: String, required: true, enum: [...PARTITIONS], immutable: true },
  });
  guard(schema, assertScoped);
}

/** A team-wide collection's net: its rows name their team in `key` (`teamId`, or `_id` for one row per team). */
export function teamTenancyPlugin(schema: Schema, opts: { key: 'teamId' | '_id' }): void {
  if (opts.key === 'teamId') schema.add({ teamId: { type: String, required: true, immutable: true } });
  guard(schema, assertTeam(opts.key));
}

/** Escapes a user's search text for use inside a RegExp. */
export const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Neutralises query operators in a filter built from client input (`{$gt: ''}` becomes a literal). */
export const sanitizeClientFilter = <T>(filter: T): T => mongoose.sanitizeFilter(filter as any) as T;
