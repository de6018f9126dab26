import type { Response } from 'express';
import type { ExportInput } from '@helpdesk/contracts';
import type { RequestContext } from '@helpdesk/kit';
import { VIEW_PERMISSION, requirePermissions } from '../access';
import type { TransferClients } from '../bulk/clients';
import { exportCsv } from './csv';
import { exportJson } from './json';
import { planOf } from './plan';

export interface ExportRequest {
  body: ExportInput;
  token: string;
  /** The export is streamed: written here piece by piece, never whole in memory. */
  res: Response;
}

/** `POST /export` (docs/adr/0036): the resources' rows from their owning services, as JSON or one resource's CSV. */
export async function exportData({ clients }: { clients: TransferClients }, ctx: RequestContext, { body, token, res }: ExportRequest): Promise<void> {
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
}
