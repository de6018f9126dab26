import { z } from 'zod';
import { paginationFields } from '../../fields';
import { defineOperations } from '../operation';
import { auditLog, team } from './common';

/** The tamper-evident audit log (docs/adr/0023). */

/** A date-time (offset required) or a date (YYYY-MM-DD, midnight UTC): `startDate`/`endDate` of the audit log. */
const auditDateField = z.union([z.iso.datetime({ offset: true }), z.iso.date()]);
export const listAuditLogQuery = z.strictObject({
  action: z.string().min(1).max(100).optional(),
  resourceType: z.string().min(1).max(100).optional(),
  actorId: z.string().min(1).max(100).optional(),
  startDate: auditDateField.optional(),
  endDate: auditDateField.optional(),
  ...paginationFields(20, 100),
});
export type ListAuditLogQuery = z.output<typeof listAuditLogQuery>;
export const auditLogEntrySchema = z
  .object({
    id: z.string(),
    object: z.literal('audit_log_entry'),
    action: z.string(),
    resourceType: z.string(),
    resourceId: z.string().nullable(),
    actorType: z.enum(['key', 'member', 'system']),
    actorId: z.string().nullable(),
    /** The console session the member acted through (`ses_…`, docs/adr/0068), null for a key or the system. */
    actorSessionId: z.string().nullable(),
    actorName: z.string(),
    details: z.record(z.string(), z.unknown()),
    createdAt: z.string().datetime(),
    sequence: z.number().int(),
    previousHash: z.string().nullable(),
    hash: z.string(),
  })
  .meta({ id: 'AuditLogEntry' });
export const auditLogVerificationSchema = z
  .object({
    object: z.literal('audit_log_verification'),
    valid: z.boolean(),
    checkedCount: z.number().int(),
    firstBrokenEntryId: z.string().nullable(),
    reason: z.enum(['hash_mismatch', 'previous_hash_mismatch', 'sequence_gap']).nullable(),
  })
  .meta({ id: 'AuditLogVerification' });


export const AUDIT_LOG = defineOperations({
  listAuditLog: {
    ...auditLog,
    method: 'GET',
    path: '/teams/{teamId}/audit-log',
    summary: 'List audit log entries',
    description:
      'Every event of every service becomes one entry (written once even when an event is redelivered), newest first, in the ' +
      'partition of the key. `action` is the event type, `details` its data. Filters: `action`, `resourceType`, `actorId`, ' +
      '`startDate`/`endDate` (ISO 8601 date-time with offset, or a date; inclusive). Entries cannot be changed or deleted through ' +
      'the API. Each carries `sequence` and the `previousHash` of the previous entry of its team and partition, and its own ' +
      '`hash` (SHA-256): see `/audit-log/verify`. Kept for AUDIT_RETENTION_DAYS (default 365) (docs/adr/0023).',
    permission: 'view_audit_log',
    params: team,
    query: listAuditLogQuery,
    success: { status: 200, data: z.array(auditLogEntrySchema), shape: 'envelope', pagination: 'meta' },
    errors: ['parameter_invalid'],
  },
  verifyAuditLog: {
    ...auditLog,
    method: 'GET',
    path: '/teams/{teamId}/audit-log/verify',
    summary: "Verify the audit log's hash chain",
    description:
      'Recomputes every entry\'s hash in sequence order and checks each `previousHash` and the sequence: answers `valid` and, ' +
      'when broken, the first broken entry and why (`hash_mismatch`: the entry was changed; `previous_hash_mismatch` or ' +
      '`sequence_gap`: an entry before it was changed, removed or inserted). The oldest kept entry starts the chain (retention ' +
      'removes older ones) (docs/adr/0023).',
    permission: 'view_audit_log',
    params: team,
    success: { status: 200, data: auditLogVerificationSchema, shape: 'envelope' },
    errors: [],
  },
});
