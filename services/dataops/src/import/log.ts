import type { BulkResource, ImportResult, ImportRowOutcome } from '@helpdesk/contracts';
import { newId, scoped, type RequestContext } from '@helpdesk/kit';
import type { DataopsModels } from '../collections';
import type { ImportLogDoc } from './model';

const ENTITY = { tickets: 'ticket', customers: 'customer', articles: 'article' } as const;

/** The answer and its log entry, rows in request order. */
export async function recordImport(
  ctx: RequestContext,
  models: Pick<DataopsModels, 'importLogs'>,
  body: { records: unknown[]; source: ImportLogDoc['source']; mergeStrategy: ImportLogDoc['mergeStrategy'] },
  resource: BulkResource,
  outcomes: ImportRowOutcome[],
  mapWarnings: Map<number, string[]>,
  started: number,
): Promise<ImportResult> {
  outcomes.sort((a, b) => a.rowIndex - b.rowIndex);
  const count = (o: ImportRowOutcome['outcome']) => outcomes.filter((r) => r.outcome === o).length;
  // What a saved row lacks (no requester, no description); a skipped or failed row says only why.
  const saved = (o: ImportRowOutcome) => o.outcome === 'created' || o.outcome === 'updated';
  const warnings = outcomes.flatMap((o) => [...(saved(o) ? (mapWarnings.get(o.rowIndex) ?? []) : []), ...(o.warnings ?? [])]);
  const log: Omit<ImportLogDoc, 'teamId' | 'mode'> = {
    _id: newId('importLog'),
    resource,
    status: count('failed') ? 'completed_with_errors' : 'completed',
    source: body.source,
    mergeStrategy: body.mergeStrategy,
    totalRecords: body.records.length,
    created: count('created'),
    updated: count('updated'),
    skipped: count('skipped'),
    failed: count('failed'),
    createdAt: new Date(),
  };
  await scoped(models, ctx).importLogs.create(log);
  return {
    object: 'import_result',
    logId: log._id,
    entityType: ENTITY[resource],
    success: log.failed === 0,
    total: body.records.length,
    created: log.created,
    updated: log.updated,
    skipped: log.skipped,
    failed: log.failed,
    createdIds: outcomes.filter((o) => o.outcome === 'created' && o.id).map((o) => ({ rowIndex: o.rowIndex, id: o.id! })),
    errors: outcomes.filter((o) => o.outcome === 'failed').map((o) => ({ rowIndex: o.rowIndex, code: o.code ?? 'parameter_invalid', message: o.message ?? `Row ${o.rowIndex + 1}: refused.` })),
    durationMs: Date.now() - started,
    warnings,
  };
}
