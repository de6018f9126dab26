import { z } from 'zod';
import type { CatalogEntry } from './read';
import { ticketSnapshotSchema } from '../events';

/**
 * Ticketing's newer events (assignment, merge, SLA), spread into EVENT_CATALOG in ../events.ts.
 * `ticket` is read lazily: events.ts imports this file while it is still defining the snapshot.
 */
const iso = z.string().datetime();
const changeFields = { changes: z.array(z.string()), previous: z.record(z.string(), z.unknown()) };
const ticket = z.lazy(() => ticketSnapshotSchema);
/** The ticket priorities (manifest/ticketing's PRIORITIES; not imported: that file imports ../events). */
const priorityKey = z.enum(['low', 'normal', 'high', 'urgent']);

export const slaRuleSnapshotSchema = z.object({
  id: z.string(),
  name: z.string(),
  priorityKey,
  responseTimeMinutes: z.number().int().positive(),
  resolutionTimeMinutes: z.number().int().positive(),
  use24x7: z.boolean(),
  enabled: z.boolean(),
  /** 0-based place in the evaluation order. */
  position: z.number().int().nonnegative(),
  createdAt: iso,
  updatedAt: iso,
});
export type SlaRuleSnapshot = z.infer<typeof slaRuleSnapshotSchema>;

export const SLA_BREACH_TARGETS = ['first_response', 'resolution'] as const;

export const TICKETING_EVENTS = {
  /** Assigned, re-assigned or unassigned (`assignedTo` null); `ticket.updated` with change `assignedTo` is emitted too. */
  'ticket.assigned': {
    version: 1, read: { op: 'getTicket' },
    data: z.object({ ticket, assignedTo: z.string().nullable(), previousAssignedTo: z.string().nullable() }),
  },
  /** `ticket` is the target, after the merge; every source is `merged` and points at it (docs/adr/0027). */
  'ticket.merged': { version: 1, read: { op: 'getTicket' }, data: z.object({ ticket, sourceTicketIds: z.array(z.string()) }) },
  /** Once per ticket and target, when its due time passes unmet (docs/adr/0026). */
  'sla.breached': {
    version: 1, read: { op: 'getTicket' },
    data: z.object({ ticket, ruleId: z.string(), target: z.enum(SLA_BREACH_TARGETS), dueAt: iso, breachedAt: iso }),
  },
  'sla_rule.created': { version: 1, read: { op: 'getSlaRule' }, data: z.object({ rule: slaRuleSnapshotSchema }) },
  'sla_rule.updated': { version: 1, read: { op: 'getSlaRule' }, data: z.object({ rule: slaRuleSnapshotSchema, ...changeFields }) },
  'sla_rule.deleted': { version: 1, read: { op: 'getSlaRule' }, data: z.object({ ruleId: z.string(), rule: slaRuleSnapshotSchema }) },
  /** The whole evaluation order after the change. */
  'sla_rule.reordered': { version: 1, read: { op: 'listSlaRules' }, data: z.object({ ruleIds: z.array(z.string()) }) },
  /** The inbound webhook's secret (docs/adr/0041): never the secret itself, its last 4 characters. */
  'inbound_email.secret_rotated': { version: 1, read: { op: 'getInboundEmail' }, data: z.object({ hint: z.string(), createdAt: z.string(), previousValidUntil: z.string().nullable() }) },
  'inbound_email.secret_revoked': { version: 1, read: { op: 'getInboundEmail' }, data: z.object({ hint: z.string() }) },
} as const satisfies Record<string, CatalogEntry>;
