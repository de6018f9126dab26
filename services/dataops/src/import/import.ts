import type { ImportInput, ImportResult } from '@helpdesk/contracts';
import type { RequestContext } from '@helpdesk/kit';
import { MANAGE_PERMISSION, requirePermissions } from '../access';
import type { TransferClients } from '../bulk/clients';
import type { DataopsModels } from '../collections';
import { recordImport } from './log';
import { RESOURCE_OF } from './mappings';
import { refuseHistory, unwrap } from './records';
import { attachRequesters, mapRows } from './rows';

/** `POST /import` (docs/adr/0037): records mapped and checked here, written by their owning service, the outcome logged. */
export async function importRecords(
  { clients, models }: { clients: TransferClients; models: Pick<DataopsModels, 'importLogs'> },
  ctx: RequestContext,
  { body, token }: { body: ImportInput; token: string },
): Promise<ImportResult> {
  const started = Date.now();
  const resource = RESOURCE_OF[body.resource];
  requirePermissions(ctx, [MANAGE_PERMISSION[resource]]);

  // Rules 2, 5, 6: every record is checked before any is written (a 400 leaves nothing behind).
  const records = body.records.map((r, i) => {
    const rec = unwrap(r, i);
    if (resource === 'tickets' && rec.action !== 'skip') refuseHistory(r, i);
    return rec;
  });

  const mapped = mapRows(resource, body.source, records);
  if (resource === 'tickets' && mapped.rows.length) await attachRequesters(clients, ctx, token, mapped);
  const { rows, outcomes, warnings } = mapped;
  if (rows.length) outcomes.push(...(await clients.call(resource, 'importRows', ctx, token, { mergeStrategy: body.mergeStrategy, rows })).outcomes);
  return recordImport(ctx, models, body, resource, outcomes, warnings, started);
}
