import type { ListAuditLogQuery, Page } from '@helpdesk/contracts';
import { findPage, parameterInvalid, scoped, type RequestContext, type ScopedFilter } from '@helpdesk/kit';
import type { WorkspaceModels } from '../collections';
import type { AuditEntryDoc } from './model';
import { auditEntryView } from './view';

/** The date a `startDate`/`endDate` names; a date alone is that day at midnight UTC. */
function dateOf(param: 'startDate' | 'endDate', value: string): Date {
  const d = new Date(value);
  if (Number.isNaN(d.getTime())) throw parameterInvalid(param, `Invalid ${param}: not a date.`);
  return d;
}

/** Newest first, in the key's partition. */
export async function listAuditLog({ models }: { models: WorkspaceModels }, ctx: RequestContext, q: ListAuditLogQuery): Promise<Page<ReturnType<typeof auditEntryView>>> {
  const filter: ScopedFilter<AuditEntryDoc> = {};
  if (q.action) filter.action = q.action;
  if (q.resourceType) filter.resourceType = q.resourceType;
  if (q.actorId) filter.actorId = q.actorId;
  const range: { $gte?: Date; $lte?: Date } = {};
  if (q.startDate) range.$gte = dateOf('startDate', q.startDate);
  if (q.endDate) {
    // A date alone covers that whole day.
    const end = dateOf('endDate', q.endDate);
    range.$lte = /^\d{4}-\d{2}-\d{2}$/.test(q.endDate) ? new Date(end.getTime() + 86_399_999) : end;
  }
  if (range.$gte && range.$lte && range.$gte > range.$lte) throw parameterInvalid('endDate', 'Invalid endDate: before startDate.');
  if (range.$gte || range.$lte) filter.createdAt = range;
  const { rows, pagination } = await findPage(scoped(models, ctx).auditEntries, filter, q, { sort: { sequence: -1 } });
  return { data: rows.map(auditEntryView), pagination };
}
