import { once } from 'node:events';
import type { Response } from 'express';
import type { BulkResource, ExportPosition } from '@helpdesk/contracts';
import { ApiError, requestIdOf, type RequestContext } from '@helpdesk/kit';
import type { TransferClients } from '../bulk/clients';
import { encodeContinuation } from './cursor';
import { pagesOf, type Plan } from './plan';

/** Writes a chunk, waiting when the client reads slower than we produce (never the whole export in memory). */
async function write(res: Response, chunk: string): Promise<void> {
  if (!res.write(chunk)) await once(res, 'drain');
}

/** The JSON export: the envelope written piece by piece, one array per resource, then summary, hasMore and nextCursors. */
export async function exportJson(clients: TransferClients, ctx: RequestContext, token: string, plan: Plan, res: Response): Promise<void> {
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

