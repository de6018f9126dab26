import {
  BULK_RESOURCES,
  EXPORT_PAGE_MAX,
  EXPORT_ROWS_MAX,
  type BulkResource,
  type ExportFilters,
  type ExportPageAnswer,
  type ExportPosition,
} from '@helpdesk/contracts';
import { parameterInvalid, parameterMissing, type RequestContext } from '@helpdesk/kit';
import type { TransferClients } from '../bulk/clients';
import { decodeContinuation, type Continuation } from './cursor';

export interface Plan {
  format: 'json' | 'csv';
  resources: BulkResource[];
  filters: ExportFilters;
  /** Where each resource starts: the beginning, or a continuation cursor's position. */
  start: Partial<Record<BulkResource, { after: ExportPosition | null; skip: number }>>;
}

export function planOf(body: { resources?: BulkResource[]; format?: 'json' | 'csv'; filters?: ExportFilters; cursor?: string }): Plan {
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
export async function* pagesOf(clients: TransferClients, ctx: RequestContext, token: string, resource: BulkResource, plan: Plan) {
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

