import type mongoose from 'mongoose';
import type { Priority } from '@helpdesk/contracts';
import { afterCommit, type Emit, type Scope } from '@helpdesk/kit';
import type { BusinessHoursRules } from '../business-hours/rules';
import type { Clock } from '../clock';
import type { TicketingModels } from '../collections';
import type { TicketDoc } from '../tickets/model';
import { ticketSnapshot } from '../tickets/view';
import type { SlaRuleDoc } from './model';
import { nextDueAt, onAgentReply, onStatusChange, retarget, settleBreaches, startSla, TARGET_EVENT_NAME, type SlaTargetName, type StoredSla } from './state';
import { slaRuleFor, type EnabledSlaRules } from './stored';

/** What a ticket write does to its SLA clock: the new state (and next due time) and the targets it breached. */
export interface SlaOutcome {
  sla: StoredSla | null;
  slaNextDueAt: Date | null;
  breached: SlaTargetName[];
}

/**
 * What a batch of new tickets (an import chunk, docs/adr/0037) reads once instead of once per ticket:
 * the first enabled rule per priority and the team's calendar, within the chunk's transaction.
 */
export interface SlaLookups {
  rules: Map<Priority, Promise<SlaRuleDoc | null>>;
  calendar?: ReturnType<BusinessHoursRules['calendarOf']>;
}

export interface SlaClockDeps {
  models: TicketingModels;
  businessHours: Pick<BusinessHoursRules, 'calendarOf'>;
  clock: Clock;
  enabledSlaRules: EnabledSlaRules;
  /** Told, once the write committed, of each next due time a write set (wakes the breach scan, docs/adr/0070). */
  dueTimes?: { moved(at: Date): void };
}

/** The SLA clocks of tickets (docs/adr/0026), as ticket writes move them. */
export interface SlaClock {
  /**
   * Inside a ticket's transaction: the SLA clock after the write from `before` (null: the ticket is
   * being created) to `after`. A first public agent reply is `agentReply`. Due times that passed
   * by now are settled first, so a late reply or resolution never counts as met.
   */
  track(scope: Scope, before: TicketDoc | null, after: TicketDoc, session: mongoose.ClientSession, opts?: { agentReply?: boolean; now?: Date; lookups?: SlaLookups }): Promise<SlaOutcome>;
  /** Emits `sla.breached` for each target a write breached (after the ticket's own events). */
  emitBreaches(emit: Emit, ticket: TicketDoc, breached: SlaTargetName[]): string[];
}

const CLOSED = new Set(['resolved', 'closed', 'merged']);

async function trackSla(
  deps: SlaClockDeps,
  scope: Scope,
  before: TicketDoc | null,
  after: TicketDoc,
  session: mongoose.ClientSession,
  opts: { agentReply?: boolean; now?: Date; lookups?: SlaLookups } = {},
): Promise<SlaOutcome> {
  const { businessHours } = deps;
  const now = opts.now ?? deps.clock.now();
  const breached: SlaTargetName[] = [];
  // Most writes touch no clock (no rule, no status or priority change): read the calendar only when one moves.
  let calendar: Promise<Awaited<ReturnType<BusinessHoursRules['calendarOf']>>> | undefined;
  const { lookups } = opts;
  const team = () => (lookups ? (lookups.calendar ??= businessHours.calendarOf(scope.teamId)) : (calendar ??= businessHours.calendarOf(scope.teamId)));
  const ruleFor = (priority: Priority) => {
    if (!lookups) return slaRuleFor(deps, scope, priority, session);
    let rule = lookups.rules.get(priority);
    if (!rule) lookups.rules.set(priority, (rule = slaRuleFor(deps, scope, priority, session)));
    return rule;
  };
  const settle = (s: StoredSla | null) => {
    if (!s) return s;
    const r = settleBreaches(s, now);
    breached.push(...r.breached);
    return r.sla;
  };
  let sla = settle(before ? (before.sla ?? null) : null);
  if (!before) {
    const rule = CLOSED.has(after.status) ? null : await ruleFor(after.priority);
    sla = rule ? startSla(rule, now, after.status !== 'pending', await team()) : null;
  } else {
    if (after.status === 'merged') return { sla, slaNextDueAt: null, breached };
    if (after.priority !== before.priority) {
      const rule = await ruleFor(after.priority);
      if (!rule) sla = null;
      else if (sla) sla = retarget(sla, rule, now, await team());
      else if (!CLOSED.has(after.status)) sla = startSla(rule, now, after.status !== 'pending', await team());
    }
    if (sla && after.status !== before.status) sla = onStatusChange(sla, before.status, after.status, now, await team());
    if (sla && opts.agentReply) sla = onAgentReply(sla, now, await team());
  }
  sla = settle(sla);
  const slaNextDueAt = nextDueAt(sla);
  if (slaNextDueAt && deps.dueTimes && slaNextDueAt.getTime() !== (before?.slaNextDueAt ? new Date(before.slaNextDueAt).getTime() : null)) {
    const { dueTimes } = deps;
    afterCommit(session, () => dueTimes.moved(slaNextDueAt));
  }
  return { sla, slaNextDueAt, breached };
}

function emitBreaches(emit: Emit, ticket: TicketDoc, breached: SlaTargetName[]): string[] {
  const sla = ticket.sla;
  if (!sla) return [];
  return breached.map((name) => {
    const t = sla[name];
    const at = new Date(t.breachedAt!).toISOString();
    return emit({ type: 'sla.breached', data: { ticket: ticketSnapshot(ticket), ruleId: sla.ruleId, target: TARGET_EVENT_NAME[name], dueAt: at, breachedAt: at } }).id;
  });
}

export const slaClock = (deps: SlaClockDeps): SlaClock => ({
  track: (scope, before, after, session, opts) => trackSla(deps, scope, before, after, session, opts),
  emitBreaches,
});
