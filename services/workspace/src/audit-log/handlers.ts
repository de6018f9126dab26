import { WORKSPACE } from '@helpdesk/contracts';
import { handlersFor } from '@helpdesk/kit';
import type { WorkspaceRules } from '../rules';

/** `/teams/{teamId}/audit-log…`: `view_audit_log`, read only. */
export const auditLogHandlers = ({ auditLog }: WorkspaceRules) =>
  handlersFor(WORKSPACE)({
    listAuditLog: ({ ctx, query }) => auditLog.list(ctx, query),
    verifyAuditLog: ({ ctx }) => auditLog.verify(ctx),
  });
