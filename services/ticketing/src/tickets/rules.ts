import type mongoose from 'mongoose';
import {
  charLength,
  TITLE_MAX,
  type CreateTicketInput,
  type Expandable,
  type GetTicketQuery,
  type ListTicketsQuery,
  type MessageSnapshot,
  type Page,
  type Priority,
  type Sender,
  type TicketStatus,
  type TicketView,
  type UpdateTicketInput,
} from '@helpdesk/contracts';
import {
  ApiError,
  changeSet,
  conflict,
  escapeRegex,
  eventScopeOf,
  foundOr404,
  mergeFreeForm,
  newId,
  notFound,
  parameterInvalid,
  retrying,
  sameJson,
  scoped,
  withOutbox,
  type LeanFilter,
  withoutNulls,
  type Emit,
  type RequestContext,
  type Scope,
  type Unscoped,
} from '@helpdesk/kit';
import type { TicketingModels } from '../models';
import { customerSummary, type CustomerFacts, type CustomerRefDoc, type CustomerSummary } from '../customer-refs/model';
import type { CustomerCalls, CustomerRefs } from '../customer-refs/rules';
import type { CustomFieldRules } from '@helpdesk/kit';
import type { Clock } from '../clock';
import type { MemberRules } from '../members/rules';
import type { SlaLookups, SlaRules } from '../sla/rules';
import { CHRONOLOGICAL, type MessageDoc } from './messages/model';
import { messageView } from './messages/view';
import { buildSearchText, replaceCustomerNameInSearchText, replaceTitleInSearchText, ticketSearchTokens, type TicketDoc } from './model';
import { ticketSnapshot, ticketView } from './view';

export interface TicketRulesDeps {
  conn: mongoose.Connection;
  models: TicketingModels;
  customerRefs: CustomerRefs;
  customFields: CustomFieldRules;
  members: MemberRules;
  sla: SlaRules;
  clock: Clock;
}

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

/** A message added inside a caller's transaction (`sender` defaults to `system`). */
export interface MessageToAdd {
  content: string;
  isInternal: boolean;
  senderName: string | null;
  sender?: Exclude<Sender, 'ai'>;
}

export type { CustomerCalls } from '../customer-refs/rules';

/** `messageType` and `isInternal` say the same thing; both sent and disagreeing is a 400. */
export function resolveInternal(input: { messageType?: 'internal' | 'public'; isInternal?: boolean }, paramPrefix = ''): boolean {
  const fromType = input.messageType === undefined ? undefined : input.messageType === 'internal';
  if (fromType !== undefined && input.isInternal !== undefined && fromType !== input.isInternal) {
    throw parameterInvalid(
      `${paramPrefix}isInternal`,
      `isInternal (${input.isInternal}) disagrees with messageType (${input.messageType}); send one, or both agreeing.`,
    );
  }
  return fromType ?? input.isInternal ?? false;
}

const CLOSING = new Set(['resolved', 'closed']);
/** What a read needs: the view's fields (not the search text, the scope, the customer's cached name and email, the revision). */
const VIEW_FIELDS = { searchText: 0, searchTokens: 0, titleTokens: 0, teamId: 0, mode: 0, customerName: 0, customerEmail: 0, rev: 0, slaNextDueAt: 0 } as const;
/** What a message's view needs (its team and partition are the caller's). */
const MESSAGE_FIELDS = { teamId: 0, mode: 0 } as const;
const expansions = (q: { 'expand[]'?: Expandable[]; expand?: Expandable[] }) => new Set<Expandable>([...(q['expand[]'] ?? []), ...(q.expand ?? [])]);

/** A PATCH lost the race with another write to the same ticket; it is re-run from a fresh read. */
export class StaleTicket extends Error {}

/** A ticket built by the create rule, not yet written. */
interface NewTicket {
  doc: Unscoped<TicketDoc>;
  msgs: Unscoped<MessageDoc>[];
  customer: CustomerFacts | null;
  now: Date;
}
const STALE_RETRIES = 10;

/** The rules of tickets (docs/adr/0004). */
export function ticketRules({ conn, models, customerRefs, customFields, members, sla, clock }: TicketRulesDeps) {
  /** A read loads the view's fields only; `forWrite` loads the whole document (search text, revision…). */
  async function findOr404(scope: Scope, id: string, session?: mongoose.ClientSession, forWrite = false): Promise<TicketDoc> {
    const t = await scoped(models, scope)
      .tickets.findOne({ _id: id }, forWrite ? undefined : VIEW_FIELDS)
      .session(session ?? null)
      .lean<TicketDoc>();
    if (!t) throw notFound('ticket', id);
    return t;
  }

  /** The projection's summaries of the tickets' customers (deleted or unknown ones are absent). */
  async function customersOf(scope: Scope, rows: TicketDoc[]): Promise<Map<string, CustomerSummary>> {
    const ids = [...new Set(rows.map((t) => t.customerId).filter((id): id is string => !!id))];
    if (!ids.length) return new Map();
    const refs = await scoped(models, scope).customerRefs.find({ _id: { $in: ids }, deleted: false }).lean<CustomerRefDoc[]>();
    return new Map(refs.map((r) => [r._id, customerSummary(r)]));
  }

  const customerOf = (customers: Map<string, CustomerSummary>, t: TicketDoc) => (t.customerId ? (customers.get(t.customerId) ?? null) : null);

  /**
   * Which customer a create names: customerId must exist in the team and partition (404), checked
   * against the projection, the customers service asked only on first sight (docs/adr/0055); else
   * customerEmail must be some customer's (422 customer_not_found) and else customerName creates one,
   * both asked of the customers service (an answer needed now: an email may have moved, docs/adr/0004).
   */
  async function resolveCustomer(ctx: RequestContext, input: CreateTicketInput, customers: CustomerCalls): Promise<CustomerFacts | null> {
    if (input.customerId) return customerRefs.lookup(ctx, input.customerId, customers);
    if (input.customerEmail) {
      const c = await customers.call('findCustomerByEmail', { query: { email: input.customerEmail } });
      if (!c) {
        throw new ApiError(
          'customer_not_found',
          `No customer has the email '${input.customerEmail}'. Create the customer first, or send customerName without customerEmail.`,
          'customerEmail',
        );
      }
      return c;
    }
    if (input.customerName?.trim()) return (await customers.call('createImplicitCustomer', { body: { name: input.customerName.trim() } }))!;
    return null;
  }

  const mergedConflict = (t: TicketDoc) =>
    conflict(`Ticket ${t._id} was merged into ${t.mergedInto ?? 'another ticket'} and cannot be changed.`);

  /**
   * Applies `input` to ticket `id` inside the caller's transaction, with the ticket's events:
   * `ticket.updated` (the changed fields), `ticket.assigned`, `ticket.closed`, `sla.breached`. Throws
   * 404 (no such ticket), 409 (merged), 400 (bad title, not a member), StaleTicket (lost a race).
   * A write that changes no field but moves the SLA clock (a breach settled) is stored without
   * `ticket.updated`.
   */
  /** A new ticket's documents, built field by field from the validated create input (no write yet). */
  async function newTicket(
    ctx: RequestContext,
    input: CreateTicketInput,
    customer: CustomerFacts | null,
    channel = 'api',
    // Many tickets (an import chunk) read the team's field definitions once: customFields.resolverFor.
    resolveFields: (given: Record<string, unknown> | undefined, current: null) => Record<string, unknown> | Promise<Record<string, unknown>> = (given, current) => customFields.resolve(ctx, given, current),
  ): Promise<NewTicket> {
    const now = clock.now();
    const id = newId('ticket');
    const msgs: Unscoped<MessageDoc>[] = (input.messages ?? []).map((m, i) => ({
      _id: newId('message'),
      ticketId: id,
      content: m.content,
      sender: m.sender,
      senderName: m.senderName ?? null,
      isInternal: resolveInternal(m, `messages.${i}.`),
      createdAt: now,
      seq: i + 1,
    }));
    const customFieldValues = await resolveFields(input.customFields, null);
    const doc: Unscoped<TicketDoc> = {
      _id: id,
      title: input.title,
      status: 'new',
      priority: input.priority ?? 'normal',
      customerId: customer?.id ?? null,
      customerName: customer?.name ?? null,
      customerEmail: customer?.email ?? null,
      assignedTo: null,
      tags: input.tags ?? [],
      notes: input.notes ?? null,
      messageCount: msgs.length,
      metadata: withoutNulls(input.metadata ?? {}),
      customFields: customFieldValues,
      channel,
      // The game counts customer tickets only: opened by the customer's own message (docs/adr/0025).
      openedBy: msgs[0]?.sender === 'customer' ? 'customer' : 'member',
      sla: null,
      slaNextDueAt: null,
      mergedInto: null,
      searchText: '',
      rev: 0,
      createdAt: now,
      updatedAt: now,
      resolvedAt: null,
      closedAt: null,
    };
    return { doc, msgs, customer, now };
  }

  /**
   * Writes built tickets in one transaction: customer links, SLA clocks, lean inserts, one
   * `ticket.created` each. Links, SLA rules and the calendar are read once for all of them (an
   * import chunk costs a few round trips, not a few per ticket).
   */
  async function createManyIn(
    ctx: RequestContext,
    built: readonly NewTicket[],
    also?: (session: mongoose.ClientSession, ticketIds: string[]) => Promise<void>,
  ): Promise<TicketView[]> {
    // The views come out of the transaction: a retry after a crash gets these back (docs/adr/0062).
    return withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
      const linked = built.length > 1 ? await customerRefs.linkMany(ctx, built.flatMap((b) => (b.customer ? [b.customer] : [])), session) : null;
      const lookups: SlaLookups = { rules: new Map() };
      for (const { doc, msgs, customer, now } of built) {
        if (customer) {
          // The newest name the projection or the customers service knows (a rename may have landed meanwhile).
          const ref = linked ? linked.get(customer.id)! : await customerRefs.link(ctx, customer, session);
          doc.customerName = ref.name;
          doc.customerEmail = ref.email;
        }
        doc.searchText = buildSearchText(doc.title, doc.customerName, msgs.map((m) => m.content));
        Object.assign(doc, ticketSearchTokens(doc));
        const clockStart = await sla.track(ctx, null, doc as TicketDoc, session, { now, lookups });
        doc.sla = clockStart.sla;
        doc.slaNextDueAt = clockStart.slaNextDueAt;
      }
      // Built field by field from the validated input: inserted lean, without mongoose
      // hydrating and validating the documents again (docs/adr/0019); the tickets straight
      // through the driver (docs/adr/0045).
      const db = scoped(models, ctx);
      await db.tickets.leanInsert(built.map((b) => b.doc), { session });
      const msgs = built.flatMap((b) => b.msgs);
      if (msgs.length) await db.messages.leanInsert(msgs, { session });
      if (also) await also(session, built.map((b) => b.doc._id));
      for (const b of built) emit({ type: 'ticket.created', data: { ticket: ticketSnapshot(b.doc), messages: b.msgs.map(messageView) } });
      return built.map((b) => ticketView(b.doc, { messages: b.msgs }));
    });
  }

  async function changeIn(session: mongoose.ClientSession, emit: Emit, scope: Scope, id: string, input: TicketChanges) {
    const db = scoped(models, scope);
    const cur = await findOr404(scope, id, session, true);
    if (cur.status === 'merged') throw mergedConflict(cur);
    const { set, previous, change, changes: changedFields } = changeSet(cur);
    const now = clock.now();

    if (input.title !== undefined && input.title !== cur.title) {
      if (charLength(input.title) > TITLE_MAX) throw parameterInvalid('title', `Invalid title: must be at most ${TITLE_MAX} characters.`);
      change('title', input.title);
      set.searchText = replaceTitleInSearchText(cur.searchText ?? '', cur.title, input.title);
    }
    if (input.customer !== undefined && (input.customer?.id ?? null) !== (cur.customerId ?? null)) {
      const ref = input.customer ? await customerRefs.link(scope, input.customer, session) : null;
      change('customerId', ref?._id ?? null);
      const title = set.title ?? cur.title;
      set.searchText = replaceCustomerNameInSearchText(set.searchText ?? cur.searchText ?? '', title, cur.customerName ?? null, ref?.name ?? null);
      set.customerName = ref?.name ?? null;
      set.customerEmail = ref?.email ?? null;
    }
    if (input.assignedTo !== undefined && input.assignedTo !== (cur.assignedTo ?? null)) {
      if (input.assignedTo !== null) await members.assertMember(scope, input.assignedTo);
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
    if (input.customFields !== undefined) change('customFields', await customFields.resolve(scope, input.customFields, cur.customFields ?? {}));
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
    const changes = changedFields();
    const clockMove = await sla.track(scope, cur, { ...cur, ...set }, session, { now });
    const slaMoved = !sameJson(clockMove.sla, cur.sla ?? null);
    if (!changes.length && !slaMoved) return { cur, next: cur, eventIds: [] as string[] };
    if (changes.length) set.updatedAt = now;
    if (slaMoved) Object.assign(set, { sla: clockMove.sla, slaNextDueAt: clockMove.slaNextDueAt });
    const written = await db.tickets.updateOne({ _id: id, rev: cur.rev ?? 0 }, { $set: set, $inc: { rev: 1 } }, { session });
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
    eventIds.push(...sla.emitBreaches(emit, next, clockMove.breached));
    return { cur, next, eventIds };
  }

  /**
   * Adds a message inside the caller's transaction: the ticket's messageCount, updatedAt and search
   * text change with it, `ticket.message_added` carries both snapshots, and a first public agent
   * reply meets the SLA response target. The status never changes here. 404 / 409 (merged).
   */
  async function addMessageIn(session: mongoose.ClientSession, emit: Emit, scope: Scope, ticketId: string, input: MessageToAdd) {
    const db = scoped(models, scope);
    const now = clock.now();
    // Write the ticket first: the write holds it for this transaction, so concurrent messages
    // each get their own count and position, and the search text is extended from the latest one.
    const next = await db.tickets
      .findOneAndUpdate({ _id: ticketId }, { $inc: { messageCount: 1, rev: 1 }, $set: { updatedAt: now } }, { session, returnDocument: 'after' })
      .lean<TicketDoc>();
    if (!next) throw notFound('ticket', ticketId);
    if (next.status === 'merged') throw mergedConflict(next);
    const sender = input.sender ?? 'system';
    next.searchText = `${next.searchText ?? ''}\n${input.content.toLowerCase()}`;
    const clockMove = await sla.track(scope, next, next, session, { now, agentReply: sender === 'agent' && !input.isInternal });
    const set: Partial<TicketDoc> = { searchText: next.searchText, ...ticketSearchTokens(next) };
    if (!sameJson(clockMove.sla, next.sla ?? null)) Object.assign(set, { sla: clockMove.sla, slaNextDueAt: clockMove.slaNextDueAt });
    Object.assign(next, set);
    await db.tickets.updateOne({ _id: ticketId }, { $set: set }, { session });
    const m: Unscoped<MessageDoc> = {
      _id: newId('message'),
      ticketId,
      content: input.content,
      sender,
      senderName: input.senderName,
      isInternal: input.isInternal,
      createdAt: now,
      seq: next.messageCount,
    };
    await scoped(models, scope).messages.leanInsert([m], { session }); // built above: no hydration (docs/adr/0019)
    const eventIds = [emit({ type: 'ticket.message_added', data: { ticket: ticketSnapshot(next), message: messageView(m) } }).id];
    eventIds.push(...sla.emitBreaches(emit, next, clockMove.breached));
    return { message: messageView(m), eventIds };
  }

  return {
    findOr404,
    changeIn,

    /**
     * For automations and bulk operations (docs/adr/0025): changes a ticket inside the caller's
     * transaction with the normal rules and events; answers the ticket after the change and the ids
     * of the events emitted. A ticket that is gone or merged is not changed (ticket null, no event);
     * bad values throw as PATCH does. `actor` is the caller's (events carry the transaction's).
     */
    async applyChanges(session: mongoose.ClientSession, emit: Emit, scope: Scope, ticketId: string, changes: TicketChanges, _actor?: unknown): Promise<{ ticket: TicketView | null; eventIds: string[] }> {
      const t = await scoped(models, scope).tickets.findOne({ _id: ticketId }, { status: 1 }).session(session).lean<Pick<TicketDoc, 'status'>>();
      if (!t || t.status === 'merged') return { ticket: null, eventIds: [] };
      const { next, eventIds } = await changeIn(session, emit, scope, ticketId, changes);
      return { ticket: ticketView(next), eventIds };
    },

    /** For automations: adds a message inside the caller's transaction (see addMessageIn above); 404 / 409 when gone or merged. */
    addMessageIn: (session: mongoose.ClientSession, emit: Emit, scope: Scope, ticketId: string, message: MessageToAdd): Promise<{ message: MessageSnapshot; eventIds: string[] }> =>
      addMessageIn(session, emit, scope, ticketId, message),

    /** `sort`: a saved view's order (docs/adr/0035); newest first otherwise. */
    async list(ctx: RequestContext, q: ListTicketsQuery, sort?: Record<string, 1 | -1>): Promise<Page<TicketView>> {
      const db = scoped(models, ctx);
      const filter: LeanFilter = {};
      if (q.status) filter.status = q.status;
      if (q.priority) filter.priority = q.priority;
      if (q.customerId) filter.customerId = q.customerId;
      if (q.assignedTo) filter.assignedTo = q.assignedTo === 'none' ? null : q.assignedTo;
      const search = q.search?.trim();
      if (search) filter.searchText = { $regex: escapeRegex(search.toLowerCase()) };
      const expand = expansions(q);

      // Through the driver (docs/adr/0043): the filter's values are stored as sent, nothing to cast.
      const { rows, pagination } = await db.tickets.leanPage<TicketDoc>(filter, q, { projection: VIEW_FIELDS, sort });
      let byTicket: Map<string, MessageDoc[]> | undefined;
      if (expand.has('messages')) {
        byTicket = new Map(rows.map((t) => [t._id, [] as MessageDoc[]]));
        if (rows.length) {
          const msgs = await db.messages.find({ ticketId: { $in: rows.map((t) => t._id) } }).sort(CHRONOLOGICAL).lean<MessageDoc[]>();
          for (const m of msgs) byTicket.get(m.ticketId)?.push(m);
        }
      }
      const customers = expand.has('customer') ? await customersOf(ctx, rows) : undefined;
      return {
        data: rows.map((t) => ticketView(t, { customer: customers ? customerOf(customers, t) : undefined, messages: byTicket?.get(t._id) })),
        pagination,
      };
    },

    async get(ctx: RequestContext, id: string, q: GetTicketQuery = {}): Promise<TicketView> {
      // The ticket and its thread in one round trip (both queries at once), through the driver
      // (docs/adr/0043: string ids, nothing to cast); no ticket, no answer.
      const db = scoped(models, ctx);
      const [t, msgs] = await Promise.all([
        db.tickets.leanFindOne<TicketDoc>({ _id: id }, { projection: VIEW_FIELDS }),
        db.messages.leanFind<Unscoped<MessageDoc>>({ ticketId: id }, { projection: MESSAGE_FIELDS, sort: CHRONOLOGICAL }),
      ]);
      if (!t) throw notFound('ticket', id);
      if (!expansions(q).has('customer')) return ticketView(t, { messages: msgs });
      return ticketView(t, { messages: msgs, customer: customerOf(await customersOf(ctx, [t]), t) });
    },

    /**
     * `opts` (import, docs/adr/0037): the channel, and a customer the caller has already found or created;
     * `also` (the widget, docs/adr/0040): the caller's own writes in the ticket's transaction.
     */
    async create(
      ctx: RequestContext,
      input: CreateTicketInput,
      customers: CustomerCalls,
      opts: { channel?: string; customer?: CustomerFacts | null; also?: (session: mongoose.ClientSession, ticketId: string) => Promise<void> } = {},
    ): Promise<TicketView> {
      const customer = opts.customer !== undefined ? opts.customer : await resolveCustomer(ctx, input, customers);
      const also = opts.also;
      const [built] = await createManyIn(ctx, [await newTicket(ctx, input, customer, opts.channel)], also && ((session, ids) => also(session, ids[0])));
      return built;
    },

    /**
     * Import (docs/adr/0037): many tickets, each built and checked by the create rule, written in ONE
     * transaction with one `ticket.created` each. A refusal while building (a custom field value)
     * fails that item alone (its ApiError in its place); a refusal while writing refuses them all.
     */
    async createMany(ctx: RequestContext, items: readonly { input: CreateTicketInput; customer: CustomerFacts | null; channel?: string }[]): Promise<(TicketView | ApiError)[]> {
      const resolveFields = await customFields.resolverFor(ctx);
      const built = await Promise.all(
        items.map((it) =>
          newTicket(ctx, it.input, it.customer, it.channel, resolveFields).catch((err: unknown) => {
            if (err instanceof ApiError && err.status < 500) return err;
            throw err;
          }),
        ),
      );
      const valid = built.filter((b): b is NewTicket => !(b instanceof ApiError));
      const views = valid.length ? await createManyIn(ctx, valid) : [];
      let next = 0;
      return built.map((b) => (b instanceof ApiError ? b : views[next++]));
    },

    async update(ctx: RequestContext, id: string, input: UpdateTicketInput, customers: CustomerCalls): Promise<TicketView> {
      if (input.status === 'merged') {
        throw parameterInvalid('status', "Invalid status: 'merged' cannot be set through PATCH; only the ticket merge operation sets it.");
      }
      // Moving the ticket to another customer: checked as a create's customerId is (404 when it does not exist).
      let customer: CustomerFacts | null | undefined;
      if (input.customerId !== undefined) customer = input.customerId === null ? null : await customerRefs.lookup(ctx, input.customerId, customers);
      const { customerId: _customerId, status, ...rest } = input;
      const changes: TicketChanges = { ...rest, ...(status !== undefined ? { status } : {}), ...(customer !== undefined ? { customer } : {}) };
      const attempt = () => withOutbox(conn, eventScopeOf(ctx), async (session, emit) => (await changeIn(session, emit, ctx, id, changes)).next);
      return ticketView(await retrying(attempt, (err) => err instanceof StaleTicket, STALE_RETRIES));
    },

    async remove(ctx: RequestContext, id: string): Promise<{ id: string; deleted: true }> {
      const db = scoped(models, ctx);
      await withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
        // The ticket first: that write holds it, so a message being added concurrently either lands
        // before (and is deleted below) or conflicts and then finds no ticket.
        const cur = await foundOr404(db.tickets.findOneAndDelete({ _id: id }, { session }).lean<TicketDoc>(), 'ticket', id);
        await db.messages.deleteMany({ ticketId: id }, { session });
        emit({ type: 'ticket.deleted', data: { ticketId: id, customerId: cur.customerId ?? null, ticket: ticketSnapshot(cur) } });
      });
      return { id, deleted: true };
    },
  };
}

export type TicketRules = ReturnType<typeof ticketRules>;
