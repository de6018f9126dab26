import type { AutomationSnapshot, ExecutionSnapshot } from '@helpdesk/contracts';
import type { Unscoped } from '@helpdesk/kit';
import type { AutomationDoc, ExecutionDoc } from './model';

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);

export function automationView(r: Unscoped<AutomationDoc>): AutomationSnapshot {
  return {
    id: r._id,
    object: 'automation_rule',
    name: r.name,
    triggerEvent: r.triggerEvent,
    conditions: { all: r.conditions?.all ?? [], any: r.conditions?.any ?? [] },
    actions: r.actions ?? [],
    enabled: r.enabled,
    executionCount: r.executionCount ?? 0,
    position: r.position,
    lastExecutedAt: iso(r.lastExecutedAt),
    createdAt: iso(r.createdAt)!,
    updatedAt: iso(r.updatedAt)!,
  };
}

export function executionView(x: Unscoped<ExecutionDoc>): ExecutionSnapshot {
  return {
    id: x._id,
    object: 'automation_execution',
    ruleId: x.ruleId,
    eventId: x.eventId,
    eventType: x.eventType,
    ticketId: x.ticketId,
    outcome: x.outcome,
    depth: x.depth,
    actions: x.actions,
    createdAt: iso(x.createdAt)!,
  };
}
