import type { ListAuditLogQuery } from '@helpdesk/contracts';
import type { RequestContext } from '@helpdesk/kit';
import type { WorkspaceModels } from '../collections';
import { listAuditLog } from './list';
import type { MemberNames } from './port';
import { auditRecorder } from './record';
import { verifyAuditLog } from './verify';

export interface AuditLogRulesDeps {
  models: WorkspaceModels;
  members: MemberNames;
}

/** The audit log (docs/adr/0023): its recorder and its use cases, bound once for handlers and the consumer. */
export function auditLogRules(deps: AuditLogRulesDeps) {
  return {
    ...auditRecorder(deps),
    list: (ctx: RequestContext, q: ListAuditLogQuery) => listAuditLog(deps, ctx, q),
    verify: (ctx: RequestContext) => verifyAuditLog(deps, ctx),
  };
}
export type AuditLogRules = ReturnType<typeof auditLogRules>;
