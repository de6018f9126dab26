import type { ExportPosition, IncrementalExportQuery } from '@helpdesk/contracts';
import { parameterInvalid, scoped, type RequestContext } from '@helpdesk/kit';
import { VIEW_PERMISSION, requirePermissions } from '../access';
import type { TransferClients } from '../bulk/clients';
import type { DataopsModels } from '../collections';
import { decodeIncremental, encodeIncremental } from './cursor';
import type { TombstoneDoc } from './model';

/** Changes younger than this are left for the next incremental call: a write still committing is never skipped. */
export const SETTLE_MS = 1_000;

type Positions = { u: ExportPosition | null; d: ExportPosition | null };

/** Where the call starts: a cursor's positions, a start time's, or the beginning. */
function startOf(query: IncrementalExportQuery): Positions {
  if (query.cursor && query.startTime) throw parameterInvalid('startTime', 'Invalid startTime: send either a cursor or a startTime, not both.');
  if (query.cursor) {
    const c = decodeIncremental(query.cursor);
    if (c.r !== query.resource) throw parameterInvalid('cursor', `Invalid cursor: it belongs to the ${c.r} incremental export, not ${query.resource}.`);
    return { u: c.u, d: c.d };
  }
  if (query.startTime) {
    // At or after startTime: the empty id sorts before every id of that instant.
    const at = new Date(query.startTime).toISOString();
    return { u: { at, id: '' }, d: { at, id: '' } };
  }
  return { u: null, d: null };
}

/** `GET /export/incremental` (docs/adr/0036): what changed (from the owning service) and what was deleted (the tombstones), after the cursor. */
export async function exportIncremental(
  { clients, models }: { clients: TransferClients; models: Pick<DataopsModels, 'tombstones'> },
  ctx: RequestContext,
  { query, token }: { query: IncrementalExportQuery; token: string },
) {
  requirePermissions(ctx, [VIEW_PERMISSION[query.resource]]);
  const position = startOf(query);
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
}
