import { once } from 'node:events';
import type { Response } from 'express';
import { stringify } from 'csv-stringify';
import { EXPORT_ROWS_MAX, type BulkResource } from '@helpdesk/contracts';
import type { RequestContext } from '@helpdesk/kit';
import type { TransferClients } from '../bulk/clients';
import { encodeContinuation } from './cursor';
import { pagesOf, type Plan } from './plan';

/** The CSV columns of each resource, in order (lists joined with `;`, objects as JSON). */
export const CSV_COLUMNS: Record<BulkResource, readonly string[]> = {
  tickets: ['id', 'title', 'status', 'priority', 'customerId', 'assignedTo', 'tags', 'notes', 'messageCount', 'metadata', 'customFields', 'createdAt', 'updatedAt', 'resolvedAt', 'closedAt'],
  customers: ['id', 'name', 'email', 'status', 'sentiment', 'tags', 'notes', 'metadata', 'customFields', 'ticketCount', 'createdAt', 'updatedAt'],
  articles: ['id', 'title', 'content', 'categoryId', 'status', 'isPublic', 'tags', 'metadata', 'customFields', 'viewCount', 'useCount', 'createdAt', 'updatedAt'],
};

const cell = (v: unknown): string => {
  if (v === null || v === undefined) return '';
  if (Array.isArray(v)) return v.join(';');
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
};

/** The CSV export (RFC 4180 by csv-stringify): whether there is more is known up front (a count), so it goes in headers. */
export async function exportCsv(clients: TransferClients, ctx: RequestContext, token: string, plan: Plan, res: Response): Promise<void> {
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
