import type { Unscoped } from '@helpdesk/kit';
import type { AuditEntryDoc } from './model';

export const auditEntryView = (e: Unscoped<AuditEntryDoc>) => ({
  id: e._id,
  object: 'audit_log_entry' as const,
  action: e.action,
  resourceType: e.resourceType,
  resourceId: e.resourceId ?? null,
  actorType: e.actorType,
  actorId: e.actorId ?? null,
  actorSessionId: e.actorSessionId ?? null,
  actorName: e.actorName,
  details: e.details ?? {},
  createdAt: new Date(e.createdAt).toISOString(),
  sequence: e.sequence,
  previousHash: e.previousHash ?? null,
  hash: e.hash,
});
