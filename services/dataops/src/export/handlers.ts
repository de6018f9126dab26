import { once } from 'node:events';
import type { Response } from 'express';
import { stringify } from 'csv-stringify';
import {
  BULK_RESOURCES,
  DATAOPS,
  EXPORT_PAGE_MAX,
  EXPORT_ROWS_MAX,
  type BulkResource,
  type ExportFilters,
  type ExportPageAnswer,
  type ExportPosition,
} from '@helpdesk/contracts';
import { ApiError, handlersFor, parameterInvalid, parameterMissing, requestIdOf, scoped, type RequestContext } from '@helpdesk/kit';
import { VIEW_PERMISSION, requirePermissions } from '../access';
import type { TransferClients } from '../bulk/clients';
import type { TombstoneDoc } from './model';
import type { DataopsModels } from '../models';
import { decodeContinuation, decodeIncremental, encodeContinuation, encodeIncremental, type Continuation } from './cursor';

/** The CSV columns of each resource, in order (lists joined with `;`, objects as JSON). */
export const CSV_COLUMNS: Record<BulkResource, readonly string[]> = {
  tickets: ['id', 'title', 'status', 'priority', 'customerId', 'assignedTo', 'tags', 'notes', 'messageCount', 'metadata', 'customFields', 'createdAt', 'updatedAt', 'resolvedAt', 'closedAt'],
  customers: ['id', 'name', 'email', 'status', 'sentiment', 'tags', 'notes', 'metadata', 'customFields', 'ticketCount', 'createdAt', 'updatedAt'],
  articles: ['id', 'title', 'content', 'categoryId', 'status', 'isPublic', 'tags', 'metadata', 'customFields', 'viewCount', 'useCount', 'createdAt', 'updatedAt'],
};

/** Changes younger than this are left for the next incremental call: a write still committing is never skipped. */
export const SETTLE_MS = 1_000;

const cell = (v: unknown): string => {
  if (v === null || v === undefined) return '';
  if (Array.isArray(v)) return v.join(';');
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
};

/** Writes a chunk, waiting when the client reads slower than we produce (never the whole export in memory). */
async function write(res: Response, chunk: string): Promise<void> {
  if (!res.write(chunk)) await once(res, 'drain');
}

interface Plan {
  format: 'json' | 'csv';
  resources: BulkResource[];
  filters: ExportFilters;
  /** Where each resource starts: the beginning, or a continuation cursor's position. */
  start: Partial<Record<BulkResource, { after: ExportPosition | null; skip: number }>>;
}

function planOf(body: { resources?: BulkResource[]; format?: 'json' | 'csv'; filters?: ExportFilters; cursor?: string }): Plan {
  const format = body.format ?? 'json';
  if (body.cursor) {
    const c: Continuation = decodeContinuation(body.cursor);
    if (body.resources && (body.resources.length !== 1 || body.resources[0] !== c.r)) {
      throw parameterInvalid('resources', `Invalid resources: this cursor continues the ${c.r} export; send it alone or with resources [${c.r}].`);
    }
    if (body.filters) throw parameterInvalid('filters', 'Invalid filters: a cursor carries the filters of the export it continues.');
    return { format, resources: [c.r], filters: c.f, start: { [c.r]: { after: c.a, skip: c.s } } };
  }
  const resources = [...new Set(body.resources ?? (format === 'json' ? BULK_RESOURCES : []))];
  if (format === 'csv' && !resources.length) throw parameterMissing('resources', 'Missing required parameter: resources (a CSV export holds exactly one resource).');
  if (format === 'csv' && resources.length > 1) throw parameterInvalid('resources', 'Invalid resources: a CSV export holds exactly one resource; export the others separately or use JSON.');
  const filters = body.filters ?? {};
  if (filters.createdAfter && filters.createdBefore && Date.parse(filters.createdAfter) >= Date.parse(filters.createdBefore)) {
    throw parameterInvalid('filters.createdBefore', 'Invalid filters.createdBefore: must be later than filters.createdAfter.');
  }
  return { format, resources, filters, start: {} };
}

/** Internal page filters: ISO strings as the owning services take them. */
const pageFilters = (f: ExportFilters) => ({
  ...(f.status ? { status: f.status } : {}),
  ...(f.priority ? { priority: f.priority } : {}),
  ...(f.createdAfter ? { createdAfter: new Date(f.createdAfter).toISOString() } : {}),
  ...(f.createdBefore ? { createdBefore: new Date(f.createdBefore).toISOString() } : {}),
});

/**
 * One resource's rows, at most 10,000, page by page from its owning service (the next page is asked
 * for while this one is written); `remaining` is the count from the start, for `hasMore` up front.
 */
async function* pagesOf(clients: TransferClients, ctx: RequestContext, token: string, resource: BulkResource, plan: Plan) {
  const start = plan.start[resource] ?? { after: null, skip: 0 };
  const filters = pageFilters(plan.filters);
  let sent = 0;
  let after = start.after;
  const ask = (skip: number, count: boolean) =>
    clients.call(resource, 'exportPage', ctx, token, {
      order: 'created',
      after,
      limit: Math.min(EXPORT_PAGE_MAX, EXPORT_ROWS_MAX - sent),
      filters,
      ...(skip ? { skip } : {}),
      ...(count ? { count } : {}),
    });
  let next: Promise<ExportPageAnswer> | null = ask(start.skip, true);
  while (next) {
    const page: ExportPageAnswer = await next;
    sent += page.rows.length;
    after = page.last ?? after;
    const more = page.rows.length === Math.min(EXPORT_PAGE_MAX, EXPORT_ROWS_MAX - (sent - page.rows.length)) && sent < EXPORT_ROWS_MAX;
    next = more ? ask(0, false) : null;
    yield page;
  }
}

/** `POST /export` and `GET /export/incremental` (docs/adr/0036). */
export const exportHandlers = (clients: TransferClients, models: Pick<DataopsModels, 'tombstones'>) =>
  handlersFor(DATAOPS)({
    exportData: async ({ ctx, body, token, res }) => {
      const plan = planOf(body);
      requirePermissions(ctx, plan.resources.map((r) => VIEW_PERMISSION[r]));
      try {
        await (plan.format === 'csv' ? exportCsv : exportJson)(clients, ctx, token, plan, res);
      } catch (err) {
        // Once rows are on their way the status is sent. JSON ends with its error marker (exportJson); a CSV has
        // no place for one: it is cut short (no 0-length end chunk), which a client cannot mistake for a whole export.
        if (!res.headersSent) throw err;
        res.destroy();
      }
    },

    exportIncremental: async ({ ctx, query, token }) => {
      requirePermissions(ctx, [VIEW_PERMISSION[query.resource]]);
      if (query.cursor && query.startTime) throw parameterInvalid('startTime', 'Invalid startTime: send either a cursor or a startTime, not both.');
      let position = { u: null as ExportPosition | null, d: null as ExportPosition | null };
      if (query.cursor) {
        const c = decodeIncremental(query.cursor);
        if (c.r !== query.resource) throw parameterInvalid('cursor', `Invalid cursor: it belongs to the ${c.r} incremental export, not ${query.resource}.`);
        position = { u: c.u, d: c.d };
      } else if (query.startTime) {
        // At or after startTime: the empty id sorts before every id of that instant.
        const at = new Date(query.startTime).toISOString();
        position = { u: { at, id: '' }, d: { at, id: '' } };
      }
      const until = new Date(Date.now() - SETTLE_MS);
      const changed = await clients.call(query.resource, 'exportPage', ctx, token, {
        order: 'updated',
        after: position.u,
        until: until.toISOString(),
        limit: query.limit,
      });
      const and: Record<string, unknown>[] = [{ recordedAt: { $lt: until } }];
      if (position.d) {
        const at = new Date(position.d.at);
        and.push({ $or: [{ recordedAt: { $gt: at } }, { recordedAt: at, _id: { $gt: position.d.id } }] });
      }
      const gone = await scoped(models, ctx)
        .tombstones.find({ resource: query.resource, $and: and })
        .sort({ recordedAt: 1, _id: 1 })
        .limit(query.limit)
        .lean<TombstoneDoc[]>();
      const lastGone = gone.at(-1);
      const d = lastGone ? { at: lastGone.recordedAt.toISOString(), id: lastGone._id } : position.d;
      return {
        object: 'incremental_export' as const,
        resource: query.resource,
        records: changed.rows,
        deletions: gone.map((t) => ({ id: t.recordId, deletedAt: t.deletedAt.toISOString() })),
        count: changed.rows.length + gone.length,
        cursor: encodeIncremental({ r: query.resource, u: changed.last ?? position.u, d }),
        endOfStream: changed.rows.length < query.limit && gone.length < query.limit,
      };
    },
  });

/** The JSON export: the envelope written piece by piece, one array per resource, then summary, hasMore and nextCursors. */
async function exportJson(clients: TransferClients, ctx: RequestContext, token: string, plan: Plan, res: Response): Promise<void> {
  const first = clients.call(plan.resources[0], 'exportPage', ctx, token, { order: 'created', after: null, limit: 1 });
  await first; // an owning service that cannot answer is a 503 before the 200 is sent
  res.status(200).setHeader('content-type', 'application/json; charset=utf-8');
  const summary: Record<string, number> = {};
  const hasMore: Record<string, boolean> = {};
  const nextCursors: Record<string, string | null> = {};
  await write(res, `{"success":true,"data":{"object":"export","format":"json","exportedAt":${JSON.stringify(new Date().toISOString())},"teamId":${JSON.stringify(ctx.teamId)}`);
  let failure: { resource: BulkResource; code: string; message: string } | null = null;
  for (const resource of plan.resources) {
    const start = plan.start[resource] ?? { after: null, skip: 0 };
    await write(res, `,${JSON.stringify(resource)}:[`);
    let count = 0;
    let remaining = 0;
    let last: ExportPosition | null = null;
    try {
      // After a failure the resources left are not read: each gets a cursor from its start below.
      if (!failure) {
        for await (const page of pagesOf(clients, ctx, token, resource, plan)) {
          if (page.remaining !== undefined) remaining = page.remaining - start.skip;
          if (page.rows.length) await write(res, (count ? ',' : '') + page.rows.map((r) => JSON.stringify(r)).join(','));
          count += page.rows.length;
          last = page.last ?? last;
        }
      }
    } catch (err) {
      if (res.destroyed) throw err; // the client went away: nobody to tell
      // An owning service failed mid-export (docs/adr/0036): the rows written are whole; the array is closed,
      // and this resource's cursor continues after its last written row.
      failure = { resource, ...exportErrorOf(err) };
    }
    if (failure) remaining = count + 1;
    await write(res, ']');
    summary[resource] = count;
    hasMore[resource] = remaining > count;
    nextCursors[resource] = !hasMore[resource] ? null : count ? encodeContinuation({ r: resource, f: plan.filters, a: last, s: 0 }) : encodeContinuation({ r: resource, f: plan.filters, a: start.after, s: start.skip });
  }
  const meta = { requestId: requestIdOf(res), timestamp: new Date().toISOString() };
  const error = failure ? `,"error":${JSON.stringify(failure)}` : '';
  res.end(`,"summary":${JSON.stringify(summary)},"hasMore":${JSON.stringify(hasMore)},"nextCursors":${JSON.stringify(nextCursors)}${error}},"meta":${JSON.stringify(meta)}}`);
}

/** What the export's error marker says about a failure: an API error's code and message, anything else a 503's. */
function exportErrorOf(err: unknown): { code: string; message: string } {
  if (err instanceof ApiError && err.status < 500) return { code: err.code, message: err.message };
  return { code: 'service_unavailable', message: 'An owning service failed while the export was read; the rows above are whole. Continue with nextCursors.' };
}

/** The CSV export (RFC 4180 by csv-stringify): whether there is more is known up front (a count), so it goes in headers. */
async function exportCsv(clients: TransferClients, ctx: RequestContext, token: string, plan: Plan, res: Response): Promise<void> {
  const [resource] = plan.resources;
  const start = plan.start[resource] ?? { after: null, skip: 0 };
  const pages = pagesOf(clients, ctx, token, resource, plan);
  const firstPage = await pages.next();
  const remaining = firstPage.done ? 0 : (firstPage.value.remaining ?? 0) - start.skip;
  const more = remaining > EXPORT_ROWS_MAX;
  res.status(200).setHeader('content-type', 'text/csv; charset=utf-8');
  res.setHeader('content-disposition', `attachment; filename="${resource}.csv"`);
  res.setHeader('x-export-has-more', String(more));
  if (more) res.setHeader('x-export-next-cursor', encodeContinuation({ r: resource, f: plan.filters, a: start.after, s: start.skip + EXPORT_ROWS_MAX }));
  const columns = CSV_COLUMNS[resource];
  // Cells starting with = + - @ are escaped: an export opened in a spreadsheet runs no formula.
  const csv = stringify({ header: true, columns: [...columns], escape_formulas: true, record_delimiter: '\r\n' });
  csv.pipe(res);
  const put = async (row: Record<string, unknown>) => {
    if (!csv.write(columns.map((c) => cell(row[c])))) await once(csv, 'drain');
  };
  if (!firstPage.done) for (const row of firstPage.value.rows) await put(row);
  for await (const page of pages) for (const row of page.rows) await put(row);
  csv.end();
  await once(res, 'finish');
}
