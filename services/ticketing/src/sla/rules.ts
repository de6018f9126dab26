import type mongoose from 'mongoose';
import type { CreateSlaRuleInput, Priority, ReorderSlaRulesInput, SlaRuleView, UpdateSlaRuleInput } from '@helpdesk/contracts';
import { SLA_RULES_MAX } from '@helpdesk/contracts';
import {
  changeSet,
  conflict,
  eventScopeOf,
  foundOr404,
  LookupCache,
  newId,
  parameterInvalid,
  scoped,
  scopeKey,
  withOutbox,
  type Emit,
  type RequestContext,
  type Scope,
  type Unscoped,
} from '@helpdesk/kit';
import type { BusinessHoursRules } from '../business-hours/rules';
import type { Clock } from '../clock';
import type { TicketingModels } from '../models';
import type { TicketDoc } from '../tickets/model';
import { ticketSnapshot } from '../tickets/view';
import { EVALUATION_ORDER, type SlaRuleDoc } from './model';
import { nextDueAt, onAgentReply, onStatusChange, retarget, settleBreaches, startSla, TARGET_EVENT_NAME, type SlaTargetName, type StoredSla } from './state';
import { slaRuleSnapshot, slaRuleView } from './view';

export interface SlaRulesDeps {
  conn: mongoose.Connection;
  models: TicketingModels;
  businessHours: BusinessHoursRules;
  clock: Clock;
  /** The service's `soleInstance`: the enabled rules are then kept per process (docs/adr/0045). */
  soleInstance?: boolean;
}

/** What a ticket write does to its SLA clock: the new state (and next due time) and the targets it breached. */
export interface SlaOutcome {
  sla: StoredSla | null;
  slaNextDueAt: Date | null;
  breached: SlaTargetName[];
}

const CLOSED = new Set(['resolved', 'closed', 'merged']);

/**
 * What a batch of new tickets (an import chunk, docs/adr/0037) reads once instead of once per ticket:
 * the first enabled rule per priority and the team's calendar, within the chunk's transaction.
 */
export interface SlaLookups {
  rules: Map<Priority, Promise<SlaRuleDoc | null>>;
  calendar?: ReturnType<BusinessHoursRules['calendarOf']>;
}

/** SLA rules and the SLA clocks of tickets (docs/adr/0026). */
export function slaRules({ conn, models, businessHours, clock, soleInstance = false }: SlaRulesDeps) {
  const ordered = (scope: Scope, session?: mongoose.ClientSession) =>
    scoped(models, scope).slaRules.find({}).sort(EVALUATION_ORDER).session(session ?? null).lean<SlaRuleDoc[]>();
  const ruleOr404 = (scope: Scope, id: string, session?: mongoose.ClientSession) =>
    foundOr404(scoped(models, scope).slaRules.findOne({ _id: id }).session(session ?? null).lean<SlaRuleDoc>(), 'sla_rule', id);
  /**
   * A partition's enabled rules in evaluation order, kept per process when this is the service's only
   * instance (every ticket write looks them up); dropped by each of this service's rule writes, their
   * only writer, once it committed (docs/adr/0045).
   */
  const enabledRules = new LookupCache<readonly SlaRuleDoc[]>({ enabled: soleInstance });
  const written = <R>(scope: Scope, write: () => Promise<R>) => enabledRules.afterWrite(scopeKey(scope), write);

  /** The first enabled rule for `priority`, in evaluation order. */
  async function ruleOf(scope: Scope, priority: Priority, session: mongoose.ClientSession): Promise<SlaRuleDoc | null> {
    if (!enabledRules.enabled) {
      return scoped(models, scope).slaRules.findOne({ priorityKey: priority, enabled: true }).sort(EVALUATION_ORDER).session(session).lean<SlaRuleDoc>();
    }
    const rules = await enabledRules.get(scopeKey(scope), () => scoped(models, scope).slaRules.find({ enabled: true }).sort(EVALUATION_ORDER).lean<SlaRuleDoc[]>());
    return rules.find((r) => r.priorityKey === priority) ?? null;
  }

  /** Rewrites positions 0..n-1 in the given order (inside the caller's transaction). */
  async function renumber(scope: Scope, ids: string[], session: mongoose.ClientSession, now: Date) {
    const db = scoped(models, scope);
    await db.slaRules.bulkWrite(
      ids.map((id, position) => ({ updateOne: { filter: { _id: id }, update: { $set: { position, updatedAt: now } } } })),
      { session },
    );
  }

  return {
    /**
     * Inside a ticket's transaction: the SLA clock after the write from `before` (null: the ticket is
     * being created) to `after`. A first public agent reply is `agentReply`. Due times that passed
     * by now are settled first, so a late reply or resolution never counts as met.
     */
    async track(scope: Scope, before: TicketDoc | null, after: TicketDoc, session: mongoose.ClientSession, opts: { agentReply?: boolean; now?: Date; lookups?: SlaLookups } = {}): Promise<SlaOutcome> {
      const now = opts.now ?? clock.now();
      const breached: SlaTargetName[] = [];
      // Most writes touch no clock (no rule, no status or priority change): read the calendar only when one moves.
      let calendar: Promise<Awaited<ReturnType<BusinessHoursRules['calendarOf']>>> | undefined;
      const { lookups } = opts;
      const team = () => (lookups ? (lookups.calendar ??= businessHours.calendarOf(scope.teamId)) : (calendar ??= businessHours.calendarOf(scope.teamId)));
      const ruleFor = (priority: Priority) => {
        if (!lookups) return ruleOf(scope, priority, session);
        let rule = lookups.rules.get(priority);
        if (!rule) lookups.rules.set(priority, (rule = ruleOf(scope, priority, session)));
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
      return { sla, slaNextDueAt: nextDueAt(sla), breached };
    },

    /** Emits `sla.breached` for each target a write breached (after the ticket's own events). */
    emitBreaches(emit: Emit, ticket: TicketDoc, breached: SlaTargetName[]): string[] {
      const sla = ticket.sla;
      if (!sla) return [];
      return breached.map((name) => {
        const t = sla[name];
        const at = new Date(t.breachedAt!).toISOString();
        return emit({ type: 'sla.breached', data: { ticket: ticketSnapshot(ticket), ruleId: sla.ruleId, target: TARGET_EVENT_NAME[name], dueAt: at, breachedAt: at } }).id;
      });
    },

    async list(ctx: RequestContext): Promise<SlaRuleView[]> {
      return (await ordered(ctx)).map(slaRuleView);
    },

    async get(ctx: RequestContext, id: string): Promise<SlaRuleView> {
      return slaRuleView(await ruleOr404(ctx, id));
    },

    async create(ctx: RequestContext, input: CreateSlaRuleInput): Promise<SlaRuleView> {
      const db = scoped(models, ctx);
      const rule = await written(ctx, () => withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
        // Counting inside the transaction: two creates at once both see each other's insert or conflict.
        const count = await db.slaRules.countDocuments({}).session(session);
        if (count >= SLA_RULES_MAX) throw conflict(`A team has at most ${SLA_RULES_MAX} SLA rules per partition; delete one first.`);
        const last = await db.slaRules.findOne({}, { position: 1 }).sort({ position: -1 }).session(session).lean<Pick<SlaRuleDoc, 'position'>>();
        const now = clock.now();
        const doc: Unscoped<SlaRuleDoc> = { _id: newId('sla'), ...input, name: input.name.trim(), position: last ? last.position + 1 : 0, createdAt: now, updatedAt: now };
        await db.slaRules.insertMany([doc], { session, lean: true });
        emit({ type: 'sla_rule.created', data: { rule: slaRuleSnapshot(doc) } });
        return doc;
      }));
      return slaRuleView(rule);
    },

    async update(ctx: RequestContext, id: string, input: UpdateSlaRuleInput): Promise<SlaRuleView> {
      const db = scoped(models, ctx);
      const rule = await written(ctx, () => withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
        const cur = await ruleOr404(ctx, id, session);
        const { set, previous, change, changes } = changeSet(cur);
        if (input.name !== undefined) change('name', input.name.trim());
        if (input.priorityKey !== undefined) change('priorityKey', input.priorityKey);
        if (input.responseTimeMinutes !== undefined) change('responseTimeMinutes', input.responseTimeMinutes);
        if (input.resolutionTimeMinutes !== undefined) change('resolutionTimeMinutes', input.resolutionTimeMinutes);
        if (input.use24x7 !== undefined) change('use24x7', input.use24x7);
        if (input.enabled !== undefined) change('enabled', input.enabled);
        const changed = changes();
        if (!changed.length) return cur;
        set.updatedAt = clock.now();
        await db.slaRules.updateOne({ _id: id }, { $set: set }, { session });
        const next = { ...cur, ...set };
        emit({ type: 'sla_rule.updated', data: { rule: slaRuleSnapshot(next), changes: changed, previous } });
        return next;
      }));
      return slaRuleView(rule);
    },

    async remove(ctx: RequestContext, id: string): Promise<{ id: string; deleted: true }> {
      const db = scoped(models, ctx);
      await written(ctx, () => withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
        const cur = await foundOr404(db.slaRules.findOneAndDelete({ _id: id }, { session }).lean<SlaRuleDoc>(), 'sla_rule', id);
        const rest = await ordered(ctx, session);
        await renumber(ctx, rest.map((r) => r._id), session, clock.now());
        emit({ type: 'sla_rule.deleted', data: { ruleId: id, rule: slaRuleSnapshot(cur) } });
      }));
      return { id, deleted: true };
    },

    async reorder(ctx: RequestContext, input: ReorderSlaRulesInput): Promise<SlaRuleView[]> {
      const rules = await written(ctx, () => withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
        const cur = await ordered(ctx, session);
        const known = new Set(cur.map((r) => r._id));
        const unknown = input.ruleIds.find((id) => !known.has(id));
        if (unknown) throw parameterInvalid('ruleIds', `Invalid ruleIds: '${unknown}' is not an SLA rule of this team and partition.`);
        if (input.ruleIds.length !== cur.length) {
          const missing = cur.find((r) => !input.ruleIds.includes(r._id))!;
          throw parameterInvalid('ruleIds', `Invalid ruleIds: every rule must be listed once; '${missing._id}' is missing.`);
        }
        if (input.ruleIds.every((id, i) => cur[i]!._id === id)) return cur;
        const now = clock.now();
        await renumber(ctx, input.ruleIds, session, now);
        emit({ type: 'sla_rule.reordered', data: { ruleIds: input.ruleIds } });
        const byId = new Map(cur.map((r) => [r._id, r]));
        return input.ruleIds.map((id, position) => ({ ...byId.get(id)!, position, updatedAt: now }));
      }));
      return rules.map(slaRuleView);
    },
  };
}
export type SlaRules = ReturnType<typeof slaRules>;
