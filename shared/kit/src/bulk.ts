import type { ExportPageAnswer, ExportPageInput, ImportRow, ImportRowOutcome, InternalBulkAnswer, MergeStrategy } from '@helpdesk/contracts';
import { ApiError } from './errors';
import type { AnyScopedModel, Stored } from './scoped';

/**
 * The owning services' side of bulk, export and import (docs/adr/0036, 0037): the loop and the
 * bookkeeping are the same for tickets, customers and articles; what happens to one record is the
 * resource's own rules (its update, delete and create, with their validation and events).
 */

/** A refusal of one record, as the single request would have answered it. */
function rowErrorOf(err: unknown): { code: string; message: string } {
  if (err instanceof ApiError && err.status < 500) return { code: err.code, message: err.message };
  throw err;
}

/** Each id through `one` in order: an id that fails (404, 400, 409 …) fails alone; a fault (5xx) stops the batch. */
export async function eachId(ids: readonly string[], one: (id: string) => Promise<unknown>): Promise<InternalBulkAnswer> {
  const out: InternalBulkAnswer = { succeeded: [], errors: [] };
  for (const id of [...new Set(ids)]) {
    try {
      await one(id);
      out.succeeded.push(id);
    } catch (err) {
      out.errors.push({ id, ...rowErrorOf(err) });
    }
  }
  return out;
}

/** Fields a resource's view never needs from the stored document. */
const SCOPE_FIELDS = { teamId: 0, mode: 0 } as const;

/**
 * One page of an export, ascending by (createdAt, _id) or (updatedAt, _id) after `after`. `filters`
 * a resource does not have (a customer's priority) are the resource's `filterOf` to drop.
 */
export async function exportPage<D extends { _id: string; createdAt: Date; updatedAt: Date }>(
  model: AnyScopedModel & Stored<D>,
  input: ExportPageInput,
  opts: { view: (doc: D) => Record<string, unknown>; filterOf: (f: NonNullable<ExportPageInput['filters']>) => Record<string, unknown>; projection?: Record<string, 0> },
): Promise<ExportPageAnswer> {
  const field = input.order === 'created' ? 'createdAt' : 'updatedAt';
  const f = input.filters ?? {};
  const filter: Record<string, unknown> = { ...opts.filterOf(f) };
  const created: Record<string, Date> = {};
  if (f.createdAfter) created.$gte = new Date(f.createdAfter);
  if (f.createdBefore) created.$lt = new Date(f.createdBefore);
  if (Object.keys(created).length) filter.createdAt = created;
  const and: Record<string, unknown>[] = [];
  if (input.until) and.push({ [field]: { $lt: new Date(input.until) } });
  if (input.after) {
    const at = new Date(input.after.at);
    and.push({ $or: [{ [field]: { $gt: at } }, { [field]: at, _id: { $gt: input.after.id } }] });
  }
  if (and.length) filter.$and = and;
  const [rows, remaining] = await Promise.all([
    model
      .find(filter, { ...SCOPE_FIELDS, ...opts.projection })
      .sort({ [field]: 1, _id: 1 })
      .skip(input.skip ?? 0)
      .limit(input.limit)
      .lean<D[]>(),
    input.count ? model.countDocuments(filter) : undefined,
  ]);
  const lastDoc = rows.at(-1);
  return {
    rows: rows.map(opts.view),
    last: lastDoc ? { at: new Date(lastDoc[field]).toISOString(), id: lastDoc._id } : null,
    ...(remaining !== undefined ? { remaining } : {}),
  };
}

/** What a resource does for import: find a match, create, update; each with its own rules and events. */
export interface ImportTarget {
  /** The existing record the row's match key names (an email, an external id, a title), or null. */
  match(row: ImportRow): Promise<string | null>;
  /** A short description of the match key, for the `Row N: …` warnings ("email a@b.c"). */
  matchLabel(row: ImportRow): string;
  create(row: ImportRow): Promise<{ id: string; warnings?: string[] }>;
  update(id: string, row: ImportRow): Promise<{ id: string; warnings?: string[] }>;
  /**
   * Optional batch form of `create` (one transaction for many rows): an answer per row in order, a
   * row's refusal as its ApiError. The rows are sent in chunks of `IMPORT_CHUNK`, `concurrency` at a time; a chunk refused as a
   * whole (a thrown ApiError, nothing written) is retried row by row through `match` and `create`.
   */
  createMany?(rows: readonly ImportRow[]): Promise<({ id: string; warnings?: string[] } | ApiError)[]>;
}

/** How many created rows one `createMany` call (one transaction) writes at most. */
export const IMPORT_CHUNK = 50;

/**
 * Import rows one at a time, in order (docs/adr/0037). `create` rows that match an existing record
 * follow the merge strategy: `skip` (a warning), `update` (the match is updated), `fail` (a row
 * error `resource_conflict`). `update` rows need `existingId` or a match; a refusal fails the row alone.
 */
export async function importRows(rows: readonly ImportRow[], strategy: MergeStrategy, target: ImportTarget, concurrency = 1): Promise<ImportRowOutcome[]> {
  const { createMany } = target;
  const failedRow = (row: ImportRow, err: unknown): ImportRowOutcome => {
    const e = rowErrorOf(err);
    return { rowIndex: row.rowIndex, outcome: 'failed', id: null, code: e.code, message: `Row ${row.rowIndex + 1}: ${e.message}` };
  };
  // With a batch form, rows to create are first only collected, then written chunk by chunk.
  const toCreate: { row: ImportRow; at: number }[] = [];
  const one = async (row: ImportRow, at: number, batch: boolean): Promise<ImportRowOutcome | null> => {
    const n = row.rowIndex + 1;
    try {
      const existing = row.existingId ?? (await target.match(row));
      if (row.action === 'update') {
        if (!existing) return { rowIndex: row.rowIndex, outcome: 'failed', id: null, code: 'resource_not_found', message: `Row ${n}: no record to update (${target.matchLabel(row)}).` };
        return { rowIndex: row.rowIndex, outcome: 'updated', ...(await target.update(existing, row)) };
      }
      if (existing && strategy === 'skip') {
        return { rowIndex: row.rowIndex, outcome: 'skipped', id: existing, warnings: [`Row ${n}: skipped: ${target.matchLabel(row)} already exists (${existing}).`] };
      }
      if (existing && strategy === 'fail') {
        return { rowIndex: row.rowIndex, outcome: 'failed', id: existing, code: 'resource_conflict', message: `Row ${n}: ${target.matchLabel(row)} already exists (${existing}).` };
      }
      if (existing) return { rowIndex: row.rowIndex, outcome: 'updated', ...(await target.update(existing, row)) };
      if (batch) {
        toCreate.push({ row, at });
        return null;
      }
      return { rowIndex: row.rowIndex, outcome: 'created', ...(await target.create(row)) };
    } catch (err) {
      return failedRow(row, err);
    }
  };
  const indexed = rows.map((row, at) => ({ row, at }));
  const out = await mapConcurrently(indexed, concurrency, ({ row, at }) => one(row, at, !!createMany));
  const chunks = createMany ? Array.from({ length: Math.ceil(toCreate.length / IMPORT_CHUNK) }, (_, i) => toCreate.slice(i * IMPORT_CHUNK, (i + 1) * IMPORT_CHUNK)) : [];
  // Chunks `concurrency` at a time (one transaction each): a transaction's reads and writes are sequential.
  await mapConcurrently(chunks, concurrency, async (chunk) => {
    let answers: Awaited<ReturnType<NonNullable<typeof createMany>>>;
    try {
      answers = await createMany!(chunk.map((c) => c.row));
    } catch (err) {
      rowErrorOf(err);
      // The chunk was refused as a whole (two rows with one email, a taken one): nothing of it was
      // written; its rows go one by one, so each meets the others' result and fails alone.
      for (const { row, at } of chunk) out[at] = await one(row, at, false);
      return;
    }
    chunk.forEach(({ row, at }, k) => {
      const a = answers[k];
      out[at] = a instanceof ApiError ? failedRow(row, a) : { rowIndex: row.rowIndex, outcome: 'created', ...a };
    });
  });
  return out as ImportRowOutcome[];
}

/** `fn` over `items`, at most `concurrency` at a time; the answers in the items' order. */
export async function mapConcurrently<T, R>(items: readonly T[], concurrency: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, worker));
  return out;
}
