import { onEvery, type Subscription } from '@helpdesk/kit';
import type { AuditLogRules } from '../audit-log/rules';

/** Every event of every service becomes an audit log entry (docs/adr/0023). */
export const auditLogSubscription = (auditLog: Pick<AuditLogRules, 'record'>): Subscription => onEvery('#', (e) => auditLog.record(e));
