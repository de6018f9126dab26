import type mongoose from 'mongoose';
import { charLength, TITLE_MAX, type Priority, type TicketStatus, type TicketView } from '@helpdesk/contracts';
import { changeSet, mergeFreeForm, parameterInvalid, sameJson, scoped, type CustomFieldRules, type Emit, type Scope } from '@helpdesk/kit';
import type { Clock } from '../clock';
import type { CustomerFacts } from '../customer-refs/model';
import type { CustomerRefs } from '../customer-refs/rules';
import type { MemberRules } from '../members/rules';
import type { TicketingModels } from '../collections';
import type { SlaClock } from '../sla/clock';
import { mergedConflict, StaleTicket } from './conflicts';
import { findTicketOr404 } from './find';
import { replaceCustomerNameInSearchText, replaceTitleInSearchText, ticketSearchTokens, type TicketDoc } from './model';
import { ticketSnapshot, ticketView } from './view';

/**
 * A change to a ticket, as PATCH, automations and bulk operations make it (docs/adr/0025). `tags`
 * replaces the list; `addTags`/`removeTags` edit it. `customer` is the customer a move links
 * (as the projection or the customers service knows it; null unlinks).
 */
export interface TicketChanges {
  title?: string;
  status?: Exclude<TicketStatus, 'merged'>;
  priority?: Priority;
  assignedTo?: string | null;
  tags?: string[];
  addTags?: string[];
  removeTags?: string[];
  notes?: string | null;
  metadata?: Record<string, unknown>;
  customFields?: Record<string, unknown>;
  customer?: CustomerFacts | null;
}

export interface ChangeTicketDeps {
  models: TicketingModels;
  customerRefs: Pick<CustomerRefs, 'link'>;
  customFields: Pick<CustomFieldRules, 'resolve'>;
  members: Pick<MemberRules, 'assertMember'>;
  sla: SlaClock;
  clock: Clock;
}

const CLOSING = new Set(['resolved', 'closed']);

/** The changed fields of `input` against `cur`, recorded with `change` (search text and closing timestamps follow their fields). */
async function changedFields(deps: ChangeTicketDeps, scope: Scope, session: mongoose.ClientSession, cur: TicketDoc, input: TicketChanges, now: Date) {
  const { set, previous, change, changes } = changeSet(cur);
  if (input.title !== undefined && input.title !== cur.title) {
    if (charLength(input.title) > TITLE_MAX) throw parameterInvalid('title', `Invalid title: must be at most ${TITLE_MAX} characters.`);
    change('title', input.title);
    set.searchText = replaceTitleInSearchText(cur.searchText ?? '', cur.title, input.title);
  }
  if (input.customer !== undefined && (input.customer?.id ?? null) !== (cur.customerId ?? null)) {
    const ref = input.customer ? await deps.customerRefs.link(scope, input.customer, session) : null;
    change('customerId', ref?._id ?? null);
    const title = set.title ?? cur.title;
    set.searchText = replaceCustomerNameInSearchText(set.searchText ?? cur.searchText ?? '', title, cur.customerName ?? null, ref?.name ?? null);
    set.customerName = ref?.name ?? null;
    set.customerEmail = ref?.email ?? null;
  }
  if (input.assignedTo !== undefined && input.assignedTo !== (cur.assignedTo ?? null)) {
    if (input.assignedTo !== null) await deps.members.assertMember(scope, input.assignedTo);
    change('assignedTo', input.assignedTo);
  }
  if (input.priority !== undefined) change('priority', input.priority);
  if (input.tags !== undefined || input.addTags || input.removeTags) {
    const drop = new Set(input.removeTags ?? []);
    const tags = [...new Set([...(input.tags ?? cur.tags ?? []), ...(input.addTags ?? [])])].filter((t) => !drop.has(t));
    change('tags', tags);
  }
  if (input.notes !== undefined) change('notes', input.notes);
  if (input.metadata !== undefined) change('metadata', mergeFreeForm(cur.metadata ?? {}, input.metadata, 'metadata'));
  if (input.customFields !== undefined) change('customFields', await deps.customFields.resolve(scope, input.customFields, cur.customFields ?? {}));
  if (input.status !== undefined && input.status !== cur.status) {
    change('status', input.status);
    if (CLOSING.has(input.status)) {
      change('closedAt', now);
      if (input.status === 'resolved') change('resolvedAt', now);
    } else {
      // Reopening (new/open/pending) clears both closing timestamps.
      change('closedAt', null);
      change('resolvedAt', null);
    }
  }
  if (set.searchText !== undefined) Object.assign(set, ticketSearchTokens({ title: set.title ?? cur.title, searchText: set.searchText }));
  return { set, previous, changes: changes() };
}

/**
 * Applies `input` to ticket `id` inside the caller's transaction, with the ticket's events:
 * `ticket.updated` (the changed fields), `ticket.assigned`, `ticket.closed`, `sla.breached`. Throws
 * 404 (no such ticket), 409 (merged), 400 (bad title, not a member), StaleTicket (lost a race).
 * A write that changes no field but moves the SLA clock (a breach settled) is stored without
 * `ticket.updated`.
 */
export async function changeTicketIn(deps: ChangeTicketDeps, session: mongoose.ClientSession, emit: Emit, scope: Scope, id: string, input: TicketChanges) {
  const cur = await findTicketOr404(deps, scope, id, session, true);
  if (cur.status === 'merged') throw mergedConflict(cur);
  const now = deps.clock.now();
  const { set, previous, changes } = await changedFields(deps, scope, session, cur, input, now);
  const clockMove = await deps.sla.track(scope, cur, { ...cur, ...set }, session, { now });
  const slaMoved = !sameJson(clockMove.sla, cur.sla ?? null);
  if (!changes.length && !slaMoved) return { cur, next: cur, eventIds: [] as string[] };
  if (changes.length) set.updatedAt = now;
  if (slaMoved) Object.assign(set, { sla: clockMove.sla, slaNextDueAt: clockMove.slaNextDueAt });
  const written = await scoped(deps.models, scope).tickets.updateOne({ _id: id, rev: cur.rev ?? 0 }, { $set: set, $inc: { rev: 1 } }, { session });
  if (written.matchedCount !== 1) throw new StaleTicket();
  const next: TicketDoc = { ...cur, ...set, rev: (cur.rev ?? 0) + 1 };
  const ticket = ticketSnapshot(next);
  const eventIds: string[] = [];
  if (changes.length) eventIds.push(emit({ type: 'ticket.updated', data: { ticket, changes, previous } }).id);
  if (changes.includes('assignedTo')) {
    eventIds.push(emit({ type: 'ticket.assigned', data: { ticket, assignedTo: next.assignedTo ?? null, previousAssignedTo: cur.assignedTo ?? null } }).id);
  }
  // Becoming resolved or closed from any other status (resolved → closed included) also closes.
  if (set.status && CLOSING.has(set.status)) eventIds.push(emit({ type: 'ticket.closed', data: { ticket, previousStatus: cur.status } }).id);
  eventIds.push(...deps.sla.emitBreaches(emit, next, clockMove.breached));
  return { cur, next, eventIds };
}

/**
 * For automations and bulk operations (docs/adr/0025): changes a ticket inside the caller's
 * transaction with the normal rules and events; answers the ticket after the change and the ids
 * of the events emitted. A ticket that is gone or merged is not changed (ticket null, no event);
 * bad values throw as PATCH does.
 */
export async function applyTicketChanges(
  deps: ChangeTicketDeps,
  session: mongoose.ClientSession,
  emit: Emit,
  scope: Scope,
  ticketId: string,
  changes: TicketChanges,
): Promise<{ ticket: TicketView | null; eventIds: string[] }> {
  const t = await scoped(deps.models, scope).tickets.findOne({ _id: ticketId }, { status: 1 }).session(session).lean<Pick<TicketDoc, 'status'>>();
  if (!t || t.status === 'merged') return { ticket: null, eventIds: [] };
  const { next, eventIds } = await changeTicketIn(deps, session, emit, scope, ticketId, changes);
  return { ticket: ticketView(next), eventIds };
}
