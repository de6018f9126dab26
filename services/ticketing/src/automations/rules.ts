import type mongoose from 'mongoose';
import {
  AUTOMATIONS_MAX,
  type ActionInput,
  type AutomationSnapshot,
  type AutomationTestResult,
  type CreateAutomationInput,
  type EventEnvelope,
  type ExecutionSnapshot,
  type Page,
  type UpdateAutomationInput,
} from '@helpdesk/contracts';
import {
  ApiError,
  changeSet,
  conflict,
  consumeOnceEmitting,
  eventScopeOf,
  findPage,
  foundOr404,
  LookupCache,
  newId,
  scoped,
  scopeKey,
  withOutbox,
  type Emit,
  type RequestContext,
  type Scope,
  type Unscoped,
} from '@helpdesk/kit';
import type { TicketingModels } from '../models';
import type { TicketDoc } from '../tickets/model';
import { ticketSnapshot } from '../tickets/view';
import { evaluateConditions, type Subject } from './conditions';
import type { AutomationDoc, ExecutionDoc } from './model';
import type { TicketChanges, TicketWriter } from './ticket-writer';

/** The consumer name trigger events are de-duplicated under (`processed_events`). */
export const AUTOMATIONS_CONSUMER = 'ticketing-automations';
/**
 * The loop guard (docs/adr/0028): an event a person or the API caused has depth 0; the events a rule
 * emits have the depth of its trigger + 1. Rules do not run on events of this depth or deeper: the
 * match is logged as `stopped` instead.
 */
export const MAX_AUTOMATION_DEPTH = 3;
/** How notes and replies written by a rule are signed (sender `system`: not an agent's first response). */
export const AUTOMATION_SENDER = 'Automation';

/** Checks a member id against the team's members (a 400 on `param` when not a current member). */
export interface MemberCheck {
  assertMember(scope: Pick<Scope, 'teamId'>, memberId: string, param?: string): Promise<void>;
}

export interface AutomationRulesDeps {
  conn: mongoose.Connection;
  models: TicketingModels;
  members: MemberCheck;
  writer: TicketWriter;
  /** The service's `soleInstance`: which events trigger enabled rules is then kept per process (docs/adr/0045). */
  soleInstance?: boolean;
}

const ORDER = { position: 1, createdAt: 1, _id: 1 } as const;
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

const actionName = (a: ActionInput) => a.type;

/** What a rule's actions would do to a ticket: the field changes, the messages, the notifications, and each action's outcome. */
interface Plan {
  changes: TicketChanges;
  messages: { content: string; isInternal: boolean }[];
  notifications: { memberId: string; message: string }[];
  outcomes: { action: string; success: boolean; error: string | null }[];
}

/** The rules of automation rules (docs/adr/0028). */
export function automationRules({ conn, models, members, writer, soleInstance = false }: AutomationRulesDeps) {
  /**
   * Per partition, the event types some enabled rule triggers on: most events match none and are
   * answered without a read. Kept only when this is the service's sole instance, dropped by every
   * rule write here (the only writer of a rule's trigger and `enabled`) once it committed (docs/adr/0045).
   */
  const triggers = new LookupCache<ReadonlySet<string>>({ enabled: soleInstance });
  const written = <R>(scope: Scope, write: () => Promise<R>) => triggers.afterWrite(scopeKey(scope), write);
  const findOr404 = async (scope: Scope, id: string, session?: mongoose.ClientSession) =>
    foundOr404(scoped(models, scope).automations.findOne({ _id: id }).session(session ?? null).lean<AutomationDoc>(), 'automation', id);

  /** Every member an action names must be a current member of the team (400 on `actions.N.memberId`). */
  async function checkMembers(scope: Scope, actions: ActionInput[]): Promise<void> {
    for (const [i, a] of actions.entries()) {
      if ((a.type === 'assign' || a.type === 'notify_member') && a.memberId) await members.assertMember(scope, a.memberId, `actions.${i}.memberId`);
    }
  }

  /** Rewrites the positions 0..n-1 in the given order. */
  async function renumber(scope: Scope, ordered: string[], session: mongoose.ClientSession): Promise<void> {
    if (!ordered.length) return;
    await scoped(models, scope).automations.bulkWrite(
      ordered.map((id, position) => ({ updateOne: { filter: { _id: id }, update: { $set: { position } } } })),
      { session },
    );
  }

  /** Plans the actions on the ticket as it is; a member no longer in the team fails that action only. */
  async function plan(scope: Scope, actions: ActionInput[], ticket: TicketDoc): Promise<Plan> {
    const p: Plan = { changes: {}, messages: [], notifications: [], outcomes: [] };
    let tags = [...(ticket.tags ?? [])];
    for (const a of actions) {
      let error: string | null = null;
      if (ticket.status === 'merged') error = 'the ticket is merged and cannot change';
      else if ((a.type === 'assign' || a.type === 'notify_member') && a.memberId) {
        try {
          await members.assertMember(scope, a.memberId, 'memberId');
        } catch (err) {
          if (!(err instanceof ApiError)) throw err;
          error = `'${a.memberId}' is not a member of this team`;
        }
      }
      if (!error) {
        switch (a.type) {
          case 'assign':
            p.changes.assignedTo = a.memberId;
            break;
          case 'set_status':
            p.changes.status = a.status;
            break;
          case 'set_priority':
            p.changes.priority = a.priority;
            break;
          case 'add_tags':
            tags = [...new Set([...tags, ...a.tags])];
            p.changes.tags = tags;
            break;
          case 'remove_tags':
            tags = tags.filter((t) => !a.tags.includes(t));
            p.changes.tags = tags;
            break;
          case 'add_note':
            p.messages.push({ content: a.content, isInternal: true });
            break;
          case 'send_reply':
            p.messages.push({ content: a.content, isInternal: false });
            break;
          case 'notify_member':
            p.notifications.push({ memberId: a.memberId, message: a.message ?? `Automation: ticket ${ticket._id} needs your attention` });
            break;
        }
      }
      p.outcomes.push({ action: actionName(a), success: !error, error });
    }
    return p;
  }

  /** Runs one matched rule: its changes, messages and notifications, counted and logged, in the consumer's transaction. */
  async function execute(
    e: EventEnvelope,
    rule: AutomationDoc,
    ticket: TicketDoc,
    depth: number,
    session: mongoose.ClientSession,
    emit: Emit,
  ): Promise<void> {
    const scope = { teamId: e.teamId, mode: e.mode };
    const db = scoped(models, scope);
    const now = new Date();
    let outcome: ExecutionDoc['outcome'] = 'stopped';
    let outcomes: ExecutionDoc['actions'] = [];
    if (depth < MAX_AUTOMATION_DEPTH) {
      outcome = 'executed';
      const p = await plan(scope, rule.actions, ticket);
      outcomes = p.outcomes;
      const emitted = await writer.applyChanges(session, emit, scope, ticket._id, p.changes);
      for (const m of p.messages) emitted.push(...(await writer.addMessage(session, emit, scope, ticket._id, { ...m, senderName: AUTOMATION_SENDER })));
      for (const n of p.notifications) {
        emitted.push(emit({ type: 'automation.member_notified', data: { ruleId: rule._id, ticketId: ticket._id, memberId: n.memberId, message: n.message } }).id);
      }
      if (emitted.length) {
        await db.automationCauses.insertMany(
          emitted.map((id) => ({ _id: id, depth: depth + 1, ruleId: rule._id, createdAt: now })),
          { session, lean: true },
        );
      }
    }
    const x: Unscoped<ExecutionDoc> = { _id: newId('execution'), ruleId: rule._id, eventId: e.id, eventType: e.type, ticketId: ticket._id, outcome, depth, actions: outcomes, createdAt: now };
    await db.executions.insertMany([x], { session, lean: true });
    const counted = outcome === 'executed';
    const after = await db.automations
      .findOneAndUpdate(
        { _id: rule._id },
        counted ? { $inc: { executionCount: 1 }, $set: { lastExecutedAt: now } } : { $set: {} },
        { session, returnDocument: 'after' },
      )
      .lean<AutomationDoc>();
    emit({ type: 'automation.executed', data: { automation: automationView(after ?? rule), execution: executionView(x) } });
  }

  return {
    async list(ctx: RequestContext): Promise<AutomationSnapshot[]> {
      const rows = await scoped(models, ctx).automations.find({}).sort(ORDER).lean<AutomationDoc[]>();
      return rows.map(automationView);
    },

    async get(ctx: RequestContext, id: string): Promise<AutomationSnapshot> {
      return automationView(await findOr404(ctx, id));
    },

    async create(ctx: RequestContext, input: CreateAutomationInput): Promise<AutomationSnapshot> {
      const actions = input.actions ?? [];
      await checkMembers(ctx, actions);
      const db = scoped(models, ctx);
      return written(ctx, () => withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
        const count = await db.automations.countDocuments({}).session(session);
        if (count >= AUTOMATIONS_MAX) throw conflict(`A team has at most ${AUTOMATIONS_MAX} automation rules; delete one first.`);
        const last = await db.automations.findOne({}).sort({ position: -1 }).session(session).lean<AutomationDoc>();
        const now = new Date();
        const doc: Unscoped<AutomationDoc> = {
          _id: newId('rule'),
          name: input.name,
          triggerEvent: input.triggerEvent,
          conditions: { all: input.conditions?.all ?? [], any: input.conditions?.any ?? [] },
          actions,
          enabled: input.enabled ?? true,
          executionCount: 0,
          position: last ? last.position + 1 : 0,
          lastExecutedAt: null,
          createdAt: now,
          updatedAt: now,
        };
        await db.automations.insertMany([doc], { session, lean: true });
        const view = automationView(doc);
        emit({ type: 'automation.created', data: { automation: view } });
        return view;
      }));
    },

    async update(ctx: RequestContext, id: string, input: UpdateAutomationInput): Promise<AutomationSnapshot> {
      if (input.actions) await checkMembers(ctx, input.actions);
      const db = scoped(models, ctx);
      return written(ctx, () => withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
        const cur = await findOr404(ctx, id, session);
        const { set, previous, change, changes } = changeSet(cur);
        if (input.name !== undefined) change('name', input.name);
        if (input.triggerEvent !== undefined) change('triggerEvent', input.triggerEvent);
        if (input.conditions !== undefined) change('conditions', { all: input.conditions.all ?? [], any: input.conditions.any ?? [] });
        if (input.actions !== undefined) change('actions', input.actions);
        if (input.enabled !== undefined) change('enabled', input.enabled);
        if (input.position !== undefined) {
          const ordered = (await db.automations.find({}, { _id: 1 }).sort(ORDER).session(session).lean<{ _id: string }[]>()).map((r) => r._id);
          const from = ordered.indexOf(id);
          const to = Math.min(input.position, ordered.length - 1);
          if (from !== to) {
            ordered.splice(from, 1);
            ordered.splice(to, 0, id);
            await renumber(ctx, ordered, session);
            previous.position = from;
            set.position = to;
          }
        }
        const changed = changes();
        if (!changed.length) return automationView(cur);
        set.updatedAt = new Date();
        await db.automations.updateOne({ _id: id }, { $set: set }, { session });
        const view = automationView({ ...cur, ...set });
        emit({ type: 'automation.updated', data: { automation: view, changes: changed, previous } });
        return view;
      }));
    },

    async remove(ctx: RequestContext, id: string): Promise<{ id: string; deleted: true }> {
      const db = scoped(models, ctx);
      await written(ctx, () => withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
        const cur = await foundOr404(db.automations.findOneAndDelete({ _id: id }, { session }).lean<AutomationDoc>(), 'automation', id);
        await db.executions.deleteMany({ ruleId: id }, { session });
        const rest = (await db.automations.find({}, { _id: 1 }).sort(ORDER).session(session).lean<{ _id: string }[]>()).map((r) => r._id);
        await renumber(ctx, rest, session);
        emit({ type: 'automation.deleted', data: { automationId: id, automation: automationView(cur) } });
      }));
      return { id, deleted: true };
    },

    /** The dry run: reads only (no transaction, no event, no count). */
    async test(ctx: RequestContext, id: string, input: { resourceType: 'ticket'; resourceId: string }): Promise<AutomationTestResult> {
      const rule = await findOr404(ctx, id);
      const ticket = await scoped(models, ctx).tickets.findOne({ _id: input.resourceId }).lean<TicketDoc>();
      if (!ticket) throw new ApiError('resource_not_found', `No such ticket: '${input.resourceId}'.`, 'resourceId');
      const { matched, results } = evaluateConditions(automationView(rule).conditions as AutomationDoc['conditions'], { ticket: ticketSnapshot(ticket) });
      const p = await plan(ctx, rule.actions, ticket);
      return {
        object: 'automation_test',
        ruleId: rule._id,
        resourceType: 'ticket',
        resourceId: ticket._id,
        wouldMatch: matched,
        conditionResults: results,
        actionsWouldExecute: p.outcomes,
      };
    },

    async executions(ctx: RequestContext, id: string, q: { page: number; pageSize: number }): Promise<Page<ExecutionSnapshot>> {
      await findOr404(ctx, id);
      const { rows, pagination } = await findPage(scoped(models, ctx).executions, { ruleId: id }, q);
      return { data: rows.map(executionView), pagination };
    },

    /**
     * A trigger event: the partition's enabled rules for its type run in order, once per event
     * (de-duplicated with the event id), each on the ticket as the rules before it left it.
     */
    async onEvent(e: EventEnvelope, ticketId: string, subject: Omit<Subject, 'ticket'>): Promise<void> {
      const scope = { teamId: e.teamId, mode: e.mode };
      const db = scoped(models, scope);
      // Most events match no rule: answered without a transaction.
      if (triggers.enabled) {
        const types = await triggers.get(scopeKey(scope), async () =>
          new Set((await db.automations.find({ enabled: true }, { triggerEvent: 1 }).lean<Pick<AutomationDoc, 'triggerEvent'>[]>()).map((r) => r.triggerEvent)),
        );
        if (!types.has(e.type)) return;
      } else if (!(await db.automations.exists({ triggerEvent: e.type, enabled: true }))) return;
      await consumeOnceEmitting(conn, AUTOMATIONS_CONSUMER, e, async (session, emit) => {
        const rules = await db.automations.find({ triggerEvent: e.type, enabled: true }).sort(ORDER).session(session).lean<AutomationDoc[]>();
        const cause = await db.automationCauses.findOne({ _id: e.id }).session(session).lean<{ depth: number }>();
        const depth = cause?.depth ?? 0;
        for (const rule of rules) {
          const ticket = await db.tickets.findOne({ _id: ticketId }).session(session).lean<TicketDoc>();
          if (!ticket) return;
          if (!evaluateConditions(rule.conditions, { ...subject, ticket: ticketSnapshot(ticket) }).matched) continue;
          await execute(e, rule, ticket, depth, session, emit);
        }
      });
    },
  };
}

export type AutomationRules = ReturnType<typeof automationRules>;
