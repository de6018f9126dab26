import type { SlaRuleSnapshot, SlaRuleView } from '@helpdesk/contracts';
import type { Unscoped } from '@helpdesk/kit';
import type { SlaRuleDoc } from './model';

/** An SLA rule as events carry it. */
export const slaRuleSnapshot = (r: Unscoped<SlaRuleDoc>): SlaRuleSnapshot => ({
  id: r._id,
  name: r.name,
  priorityKey: r.priorityKey,
  responseTimeMinutes: r.responseTimeMinutes,
  resolutionTimeMinutes: r.resolutionTimeMinutes,
  use24x7: r.use24x7,
  enabled: r.enabled,
  position: r.position,
  createdAt: new Date(r.createdAt).toISOString(),
  updatedAt: new Date(r.updatedAt).toISOString(),
});

/** The public SLA rule. */
export const slaRuleView = (r: Unscoped<SlaRuleDoc>): SlaRuleView => ({ object: 'sla_rule', ...slaRuleSnapshot(r) });
