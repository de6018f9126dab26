import type mongoose from 'mongoose';
import type { EventEnvelope } from '@helpdesk/contracts';
import { consumeOnceEmitting, newId, scoped, type Emit, type Scope, type Unscoped } from '@helpdesk/kit';
import type { TicketingModels } from '../collections';
import type { TicketDoc } from '../tickets/model';
import { ticketSnapshot } from '../tickets/view';
import { evaluateConditions, type Subject } from './conditions';
import type { AutomationDoc, ExecutionDoc } from './model';
import { planActions } from './plan';
import { ORDER, type MemberCheck } from './stored';
import type { TicketWriter } from './ticket-writer';
import type { AutomationTriggers, TriggerMatch } from './triggers';
import { automationView, executionView } from './view';

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

export interface RunAutomationsDeps {
  conn: mongoose.Connection;
  models: TicketingModels;
  members: MemberCheck;
  ticketWriter: TicketWriter;
  automationTriggers: AutomationTriggers;
  /** Whether the event's partition has an enabled rule for its type (./triggers.ts). */
  triggerMatch: TriggerMatch;
}

/** Runs one matched rule's actions on the ticket; answers their outcomes. The ids of the events they emitted are recorded one level deeper. */
async function runActions(
  { models, members, ticketWriter }: Pick<RunAutomationsDeps, 'models' | 'members' | 'ticketWriter'>,
  { session, emit }: { session: mongoose.ClientSession; emit: Emit },
  scope: Scope,
  rule: AutomationDoc,
  ticket: TicketDoc,
  depth: number,
  now: Date,
): Promise<ExecutionDoc['actions']> {
  const p = await planActions(members, scope, rule.actions, ticket);
  const emitted = await ticketWriter.applyChanges(session, emit, scope, ticket._id, p.changes);
  for (const m of p.messages) emitted.push(...(await ticketWriter.addMessage(session, emit, scope, ticket._id, { ...m, senderName: AUTOMATION_SENDER })));
  for (const n of p.notifications) {
    emitted.push(emit({ type: 'automation.member_notified', data: { ruleId: rule._id, ticketId: ticket._id, memberId: n.memberId, message: n.message } }).id);
  }
  if (emitted.length) {
    await scoped(models, scope).automationCauses.insertMany(
      emitted.map((id) => ({ _id: id, depth: depth + 1, ruleId: rule._id, createdAt: now })),
      { session, lean: true },
    );
  }
  return p.outcomes;
}

/** Runs one matched rule: its changes, messages and notifications, counted and logged, in the consumer's transaction. */
async function execute(
  deps: RunAutomationsDeps,
  e: EventEnvelope,
  rule: AutomationDoc,
  ticket: TicketDoc,
  depth: number,
  session: mongoose.ClientSession,
  emit: Emit,
): Promise<void> {
  const scope = { teamId: e.teamId, mode: e.mode };
  const db = scoped(deps.models, scope);
  const now = new Date();
  const counted = depth < MAX_AUTOMATION_DEPTH;
  const outcome: ExecutionDoc['outcome'] = counted ? 'executed' : 'stopped';
  const outcomes: ExecutionDoc['actions'] = counted ? await runActions(deps, { session, emit }, scope, rule, ticket, depth, now) : [];
  const x: Unscoped<ExecutionDoc> = { _id: newId('execution'), ruleId: rule._id, eventId: e.id, eventType: e.type, ticketId: ticket._id, outcome, depth, actions: outcomes, createdAt: now };
  await db.executions.insertMany([x], { session, lean: true });
  const after = await db.automations
    .findOneAndUpdate(
      { _id: rule._id },
      counted ? { $inc: { executionCount: 1 }, $set: { lastExecutedAt: now } } : { $set: {} },
      { session, returnDocument: 'after' },
    )
    .lean<AutomationDoc>();
  emit({ type: 'automation.executed', data: { automation: automationView(after ?? rule), execution: executionView(x) } });
}

/**
 * A trigger event: the partition's enabled rules for its type run in order, once per event
 * (de-duplicated with the event id), each on the ticket as the rules before it left it.
 */
export async function runAutomations(deps: RunAutomationsDeps, e: EventEnvelope, ticketId: string, subject: Omit<Subject, 'ticket'>): Promise<void> {
  const scope = { teamId: e.teamId, mode: e.mode };
  const db = scoped(deps.models, scope);
  // Most events match no rule: answered without a transaction (kept, or one read for the events delivered together).
  if (!(await deps.triggerMatch(scope, e.type))) return;
  await consumeOnceEmitting(deps.conn, AUTOMATIONS_CONSUMER, e, async (session, emit) => {
    const rules = await db.automations.find({ triggerEvent: e.type, enabled: true }).sort(ORDER).session(session).lean<AutomationDoc[]>();
    const cause = await db.automationCauses.findOne({ _id: e.id }).session(session).lean<{ depth: number }>();
    const depth = cause?.depth ?? 0;
    for (const rule of rules) {
      const ticket = await db.tickets.findOne({ _id: ticketId }).session(session).lean<TicketDoc>();
      if (!ticket) return;
      if (!evaluateConditions(rule.conditions, { ...subject, ticket: ticketSnapshot(ticket) }).matched) continue;
      await execute(deps, e, rule, ticket, depth, session, emit);
    }
  });
}
