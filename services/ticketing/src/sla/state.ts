import { slaTierOf, type SlaState, type SlaTarget } from '@helpdesk/contracts';
import { addWorkingMinutes, workingMinutesBetween, type WorkingCalendar } from '../business-hours/working-time';
import type { SlaRuleDoc } from './model';

/**
 * A ticket's SLA clock as stored on the ticket (docs/adr/0026). Per target, the clock has consumed
 * `consumedMinutes` of working time before the segment running since `runningSince` (null while
 * stopped: the ticket is pending, or the target is over). `dueAt` is derived from both.
 */
export interface StoredSlaTarget {
  status: SlaTarget['status'];
  targetMinutes: number;
  dueAt: Date | null;
  achievedAt: Date | null;
  breachedAt: Date | null;
  elapsedMinutes: number | null;
  consumedMinutes: number;
  runningSince: Date | null;
}
export interface StoredSla {
  ruleId: string;
  ruleName: string;
  use24x7: boolean;
  firstResponse: StoredSlaTarget;
  resolution: StoredSlaTarget;
}
export type SlaTargetName = 'firstResponse' | 'resolution';
export const SLA_TARGET_NAMES: readonly SlaTargetName[] = ['firstResponse', 'resolution'];
/** How `sla.breached` names a target. */
export const TARGET_EVENT_NAME = { firstResponse: 'first_response', resolution: 'resolution' } as const;

/** What a clock counts in: the team's calendar, or every hour for a 24x7 rule. */
export type SlaCalendar = WorkingCalendar | null;
export const calendarFor = (sla: Pick<StoredSla, 'use24x7'>, team: WorkingCalendar | null): SlaCalendar => (sla.use24x7 ? null : team);

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);
const round = (n: number) => Math.round(n * 100) / 100;

/** Minutes the target's clock has run by `now`. */
function usedMinutes(t: StoredSlaTarget, now: Date, cal: SlaCalendar): number {
  return t.consumedMinutes + (t.runningSince ? workingMinutesBetween(new Date(t.runningSince), now, cal) : 0);
}

const withDue = (t: StoredSlaTarget, cal: SlaCalendar): StoredSlaTarget => ({
  ...t,
  dueAt: t.runningSince && t.status === 'active' ? addWorkingMinutes(new Date(t.runningSince), Math.max(0, t.targetMinutes - t.consumedMinutes), cal) : null,
});

const isOpen = (t: StoredSlaTarget) => t.achievedAt === null;

function startTarget(minutes: number, now: Date, running: boolean, cal: SlaCalendar): StoredSlaTarget {
  return withDue(
    { status: running ? 'active' : 'paused', targetMinutes: minutes, dueAt: null, achievedAt: null, breachedAt: null, elapsedMinutes: null, consumedMinutes: 0, runningSince: running ? now : null },
    cal,
  );
}

/** A ticket's SLA state from `rule`, starting now (paused at once when the ticket is pending). */
export function startSla(rule: SlaRuleDoc, now: Date, running: boolean, team: WorkingCalendar | null): StoredSla {
  const cal = calendarFor(rule, team);
  return {
    ruleId: rule._id,
    ruleName: rule.name,
    use24x7: rule.use24x7,
    firstResponse: startTarget(rule.responseTimeMinutes, now, running, cal),
    resolution: startTarget(rule.resolutionTimeMinutes, now, running, cal),
  };
}

/** Stops a target's clock, keeping the minutes it used (pending, or the ticket resolved before a first reply). */
function stop(t: StoredSlaTarget, now: Date, cal: SlaCalendar): StoredSlaTarget {
  if (!t.runningSince) return t;
  return { ...t, consumedMinutes: usedMinutes(t, now, cal), runningSince: null, dueAt: null, status: t.status === 'breached' ? 'breached' : 'paused' };
}

function resume(t: StoredSlaTarget, now: Date, cal: SlaCalendar): StoredSlaTarget {
  if (t.runningSince || !isOpen(t)) return t;
  return withDue({ ...t, runningSince: now, status: t.status === 'breached' ? 'breached' : 'active' }, cal);
}

/** The first response or the resolution happened now: met unless already breached (then only recorded). */
function achieve(t: StoredSlaTarget, now: Date, cal: SlaCalendar): StoredSlaTarget {
  if (!isOpen(t)) return t;
  const elapsed = round(usedMinutes(t, now, cal));
  return { ...t, achievedAt: now, elapsedMinutes: elapsed, consumedMinutes: elapsed, runningSince: null, dueAt: null, status: t.status === 'breached' ? 'breached' : 'met' };
}

/** A reopened ticket's resolution clock runs again from the minutes it had used. */
function reopen(t: StoredSlaTarget): StoredSlaTarget {
  return { ...t, achievedAt: null, elapsedMinutes: null, status: t.status === 'breached' ? 'breached' : 'paused' };
}

/** The ticket's status changed from `from` to `to`: pending pauses both clocks, resolved/closed ends them. */
export function onStatusChange(sla: StoredSla, from: string, to: string, now: Date, team: WorkingCalendar | null): StoredSla {
  const cal = calendarFor(sla, team);
  const closing = (s: string) => s === 'resolved' || s === 'closed';
  let { firstResponse, resolution } = sla;
  if (closing(to)) {
    resolution = achieve(resolution, now, cal);
    firstResponse = stop(firstResponse, now, cal);
  } else if (to === 'pending') {
    if (closing(from)) resolution = reopen(resolution);
    firstResponse = stop(firstResponse, now, cal);
    resolution = stop(resolution, now, cal);
  } else {
    if (closing(from)) resolution = reopen(resolution);
    firstResponse = resume(firstResponse, now, cal);
    resolution = resume(resolution, now, cal);
  }
  return { ...sla, firstResponse, resolution };
}

/** Both clocks stop where they are (a merged ticket): nothing can breach or be met any more. */
export function stopClocks(sla: StoredSla, now: Date, team: WorkingCalendar | null): StoredSla {
  const cal = calendarFor(sla, team);
  return { ...sla, firstResponse: stop(sla.firstResponse, now, cal), resolution: stop(sla.resolution, now, cal) };
}

/** The first public agent reply. */
export function onAgentReply(sla: StoredSla, now: Date, team: WorkingCalendar | null): StoredSla {
  return { ...sla, firstResponse: achieve(sla.firstResponse, now, calendarFor(sla, team)) };
}

/**
 * Re-targets on a priority change (docs/adr/0026): the clocks keep the minutes they used, the
 * targets become the new rule's; a target already past is breached by the next `settleBreaches`.
 */
export function retarget(sla: StoredSla, rule: SlaRuleDoc, now: Date, team: WorkingCalendar | null): StoredSla {
  const oldCal = calendarFor(sla, team);
  const cal = calendarFor(rule, team);
  const move = (t: StoredSlaTarget, minutes: number): StoredSlaTarget => {
    if (!t.runningSince) return { ...t, targetMinutes: minutes };
    // Bank the minutes in the old rule's calendar, then run on in the new one's.
    return withDue({ ...t, targetMinutes: minutes, consumedMinutes: usedMinutes(t, now, oldCal), runningSince: now }, cal);
  };
  return {
    ruleId: rule._id,
    ruleName: rule.name,
    use24x7: rule.use24x7,
    firstResponse: move(sla.firstResponse, rule.responseTimeMinutes),
    resolution: move(sla.resolution, rule.resolutionTimeMinutes),
  };
}

/** Targets whose due time has passed by `now` become breached; returns the new state and which ones. */
export function settleBreaches(sla: StoredSla, now: Date): { sla: StoredSla; breached: SlaTargetName[] } {
  const breached: SlaTargetName[] = [];
  const next = { ...sla };
  for (const name of SLA_TARGET_NAMES) {
    const t = sla[name];
    if (t.status === 'active' && t.dueAt && new Date(t.dueAt).getTime() <= now.getTime()) {
      next[name] = { ...t, status: 'breached', breachedAt: new Date(t.dueAt) };
      breached.push(name);
    }
  }
  return { sla: next, breached };
}

/** When the scheduler must look at the ticket next: the earliest due time of a target still able to breach. */
export function nextDueAt(sla: StoredSla | null): Date | null {
  if (!sla) return null;
  const due = SLA_TARGET_NAMES.map((n) => sla[n])
    .filter((t) => t.status === 'active' && t.dueAt)
    .map((t) => new Date(t.dueAt!).getTime());
  return due.length ? new Date(Math.min(...due)) : null;
}

const targetView = (t: StoredSlaTarget): SlaTarget => ({
  status: t.status,
  targetMinutes: t.targetMinutes,
  dueAt: iso(t.dueAt),
  achievedAt: iso(t.achievedAt),
  breachedAt: iso(t.breachedAt),
  elapsedMinutes: t.elapsedMinutes,
});

/** The public SLA state (the internal clock fields stay inside). */
export function slaView(sla: StoredSla | null | undefined): SlaState | null {
  if (!sla) return null;
  const firstResponse = targetView(sla.firstResponse);
  const resolution = targetView(sla.resolution);
  return { ruleId: sla.ruleId, ruleName: sla.ruleName, use24x7: sla.use24x7, firstResponse, resolution, tier: slaTierOf({ firstResponse, resolution }) };
}
