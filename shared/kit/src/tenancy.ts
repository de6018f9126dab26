import mongoose, { type Schema } from 'mongoose';

/**
 * Fail-closed tenancy for mongoose: every document carries `teamId` and `mode`, and every query,
 * update, delete, count and aggregate must name both (as plain strings) or it throws before
 * reaching the database. Unique indexes are declared with the scope first (`{teamId, mode, email}`).
 */
export class TenancyError extends Error {}

const QUERY_OPS = [
  'find', 'findOne', 'countDocuments', 'distinct',
  'updateOne', 'updateMany', 'replaceOne', 'deleteOne', 'deleteMany',
  'findOneAndUpdate', 'findOneAndDelete', 'findOneAndReplace',
] as const;

function assertScoped(filter: Record<string, unknown> | undefined, where: string): void {
  if (!filter || typeof filter.teamId !== 'string' || (filter.mode !== 'test' && filter.mode !== 'live')) {
    throw new TenancyError(`tenancy: ${where} without a {teamId, mode} scope`);
  }
}

export function tenancyPlugin(schema: Schema): void {
  schema.add({
    teamId: { type: String, required: true, immutable: true },
    mode: { type: String, required: true, enum: ['test', 'live'], immutable: true },
  });
  for (const op of QUERY_OPS) {
    schema.pre(op, function (this: mongoose.Query<unknown, unknown>) {
      assertScoped(this.getFilter() as Record<string, unknown>, `${op} on ${this.model.modelName}`);
    });
  }
  schema.pre('aggregate', function (this: mongoose.Aggregate<unknown>) {
    const first = this.pipeline()[0] as { $match?: Record<string, unknown> } | undefined;
    assertScoped(first?.$match, 'aggregate (first stage must $match the scope)');
  });
  // mongoose runs model-level bulkWrite middleware; its typings do not list the hook name.
  (schema as any).pre('bulkWrite', function (ops: mongoose.AnyBulkWriteOperation[]) {
    for (const op of ops ?? []) {
      const body = Object.values(op)[0] as { filter?: Record<string, unknown>; document?: Record<string, unknown> };
      if ('insertOne' in op) assertScoped(body.document, 'bulkWrite insertOne');
      else assertScoped(body.filter, `bulkWrite ${Object.keys(op)[0]}`);
    }
  });
}

/** Escapes a user's search text for use inside a RegExp. */
export const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Neutralises query operators in a filter built from client input (`{$gt: ''}` becomes a literal). */
export const sanitizeClientFilter = <T>(filter: T): T => mongoose.sanitizeFilter(filter as any) as T;
