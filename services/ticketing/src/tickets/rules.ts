import type mongoose from 'mongoose';
import type { CustomerSnapshot } from '@helpdesk/contracts';
import {
  ApiError,
  changeSet,
  charLength,
  escapeRegex,
  eventScopeOf,
  mergeKeyValues,
  OBJECT_KEYS_MAX,
  withoutNulls,
  newId,
  notFound,
  pageOf,
  parameterInvalid,
  scopeOf,
  skipOf,
  type Pagination,
  type RequestContext,
} from '@helpdesk/kit';
import { withOutbox } from '../outbox';
import { CHRONOLOGICAL, type MessageDoc, type MessageModel } from '../messages/model';
import type { CustomerLookup } from '../customers/client';
import { customerSummary, type CustomerRefDoc, type CustomerRefModel, type CustomerSummary } from '../customers/model';
import type { CustomerRefs } from '../customers/service';
import { buildSearchText, replaceCustomerNameInSearchText, replaceTitleInSearchText, type TicketDoc, type TicketModel } from './model';
import { messageView, ticketSnapshot } from './snapshot';
import {
  TITLE_MAX,
  type CreateTicketInput,
  type Expandable,
  type GetTicketQuery,
  type ListTicketsQuery,
  type UpdateTicketInput,
} from './schema';

export { messageView, ticketSnapshot } from './snapshot';

export interface TicketingDeps {
  conn: mongoose.Connection;
  tickets: TicketModel;
  messages: MessageModel;
  refs: CustomerRefModel;
  customerRefs: CustomerRefs;
}

/**
 * The spec's Ticket table, camelCase, nothing internal (no channel, search text or customer fields).
 * `customer` (expand[]=customer) is the projection's summary, null when the ticket has none.
 */
export function ticketView(t: TicketDoc, extra: { messages?: MessageDoc[]; customer?: CustomerSummary | null } = {}) {
  const { channel: _channel, ...pub } = ticketSnapshot(t);
  return {
    ...pub,
    ...(extra.customer !== undefined ? { customer: extra.customer } : {}),
    ...(extra.messages ? { messages: extra.messages.map(messageView) } : {}),
  };
}


/** `messageType` and `isInternal` say the same thing; both sent and disagreeing is a 400. */
export function resolveInternal(
  input: { messageType?: 'internal' | 'public'; isInternal?: boolean },
  paramPrefix = '',
): boolean {
  const fromType = input.messageType === undefined ? undefined : input.messageType === 'internal';
  if (fromType !== undefined && input.isInternal !== undefined && fromType !== input.isInternal) {
    throw parameterInvalid(
      `${paramPrefix}isInternal`,
      `isInternal (${input.isInternal}) disagrees with messageType (${input.messageType}); send one, or both agreeing.`,
    );
  }
  return fromType ?? input.isInternal ?? false;
}

function metadataWithinLimit(m: Record<string, unknown>): void {
  if (Object.keys(m).length > OBJECT_KEYS_MAX) throw parameterInvalid('metadata', `Invalid metadata: at most ${OBJECT_KEYS_MAX} keys.`);
}

const CLOSING = new Set(['resolved', 'closed']);
const WITHOUT_SEARCH_TEXT = { searchText: 0 } as const;

/** A PATCH lost the race with another write to the same ticket; it is re-run from a fresh read. */
class StaleTicket extends Error {}
const STALE_RETRIES = 10;

// ---------- the rules ----------

export function createTicketService(deps: TicketingDeps) {
  const { conn, tickets: Tickets, messages: Messages, refs: Refs, customerRefs } = deps;

  /** `forWrite` also loads the search text (it can be long; reads never need it). */
  async function findOr404(ctx: RequestContext, id: string, session?: mongoose.ClientSession, forWrite = false): Promise<TicketDoc> {
    const t = await Tickets.findOne({ _id: id, ...scopeOf(ctx) }, forWrite ? undefined : WITHOUT_SEARCH_TEXT)
      .session(session ?? null)
      .lean<TicketDoc>();
    if (!t) throw notFound('ticket', id);
    return t;
  }

  /** The projection's summaries of the tickets' customers (deleted or unknown ones are null). */
  async function customersOf(ctx: RequestContext, rows: TicketDoc[]): Promise<Map<string, CustomerSummary>> {
    const ids = [...new Set(rows.map((t) => t.customerId).filter((id): id is string => !!id))];
    if (!ids.length) return new Map();
    const refs = await Refs.find({ ...scopeOf(ctx), _id: { $in: ids }, deleted: false }).lean<CustomerRefDoc[]>();
    return new Map(refs.map((r) => [r._id, customerSummary(r)]));
  }

  /**
   * Which customer a create names, asked of the customers service (an answer needed now):
   * customerId must exist in the team and partition (404); else customerEmail must be some
   * customer's (422 customer_not_found); else customerName creates one.
   */
  async function resolveCustomer(input: CreateTicketInput, lookup: CustomerLookup): Promise<CustomerSnapshot | null> {
    if (input.customerId) {
      const c = await lookup.byId(input.customerId);
      if (!c) throw notFound('customer', input.customerId);
      return c;
    }
    if (input.customerEmail) {
      const c = await lookup.byEmail(input.customerEmail);
      if (!c) throw new ApiError('customer_not_found', `No customer has the email '${input.customerEmail}'. Create the customer first, or send customerName without customerEmail.`, 'customerEmail');
      return c;
    }
    if (input.customerName?.trim()) return lookup.create(input.customerName.trim());
    return null;
  }

  return {
    findOr404,

    async list(ctx: RequestContext, q: ListTicketsQuery): Promise<{ items: ReturnType<typeof ticketView>[]; pagination: Pagination }> {
      const filter: Record<string, unknown> = { ...scopeOf(ctx) };
      if (q.status) filter.status = q.status;
      if (q.priority) filter.priority = q.priority;
      if (q.customerId) filter.customerId = q.customerId;
      if (q.assignedTo) filter.assignedTo = q.assignedTo;
      const search = q.search?.trim();
      if (search) filter.searchText = { $regex: escapeRegex(search.toLowerCase()) };
      const expand = new Set<Expandable>([...(q['expand[]'] ?? []), ...(q.expand ?? [])]);

      const [total, rows] = await Promise.all([
        Tickets.countDocuments(filter),
        Tickets.find(filter, WITHOUT_SEARCH_TEXT)
          .sort({ createdAt: -1, _id: -1 })
          .skip(skipOf(q.page, q.pageSize))
          .limit(q.pageSize)
          .lean<TicketDoc[]>(),
      ]);
      let byTicket: Map<string, MessageDoc[]> | undefined;
      if (expand.has('messages')) {
        byTicket = new Map(rows.map((t) => [t._id, [] as MessageDoc[]]));
        if (rows.length) {
          const msgs = await Messages.find({ ...scopeOf(ctx), ticketId: { $in: rows.map((t) => t._id) } })
            .sort(CHRONOLOGICAL)
            .lean<MessageDoc[]>();
          for (const m of msgs) byTicket.get(m.ticketId)?.push(m);
        }
      }
      const customers = expand.has('customer') ? await customersOf(ctx, rows) : undefined;
      return {
        items: rows.map((t) =>
          ticketView(t, { customer: customers ? (t.customerId ? customers.get(t.customerId) ?? null : null) : undefined, messages: byTicket?.get(t._id) }),
        ),
        pagination: pageOf(q.page, q.pageSize, total),
      };
    },

    async get(ctx: RequestContext, id: string, q: GetTicketQuery = {}) {
      const t = await findOr404(ctx, id);
      const msgs = await Messages.find({ ...scopeOf(ctx), ticketId: id }).sort(CHRONOLOGICAL).lean<MessageDoc[]>();
      if (![...(q['expand[]'] ?? []), ...(q.expand ?? [])].includes('customer')) return ticketView(t, { messages: msgs });
      const customers = await customersOf(ctx, [t]);
      return ticketView(t, { messages: msgs, customer: t.customerId ? customers.get(t.customerId) ?? null : null });
    },

    async create(ctx: RequestContext, input: CreateTicketInput, lookup: CustomerLookup) {
      const customer = await resolveCustomer(input, lookup);
      const now = new Date();
      const id = newId('ticket');
      const scope = scopeOf(ctx);
      const msgs: MessageDoc[] = (input.messages ?? []).map((m, i) => ({
        _id: newId('message'),
        ...scope,
        ticketId: id,
        content: m.content,
        sender: m.sender,
        senderName: m.senderName ?? null,
        isInternal: resolveInternal(m, `messages.${i}.`),
        createdAt: now,
        seq: i + 1,
      }));
      const doc: TicketDoc = {
        _id: id,
        ...scope,
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
        channel: 'api',
        searchText: '',
        rev: 0,
        createdAt: now,
        updatedAt: now,
        resolvedAt: null,
        closedAt: null,
      };
      await withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
        if (customer) {
          // The newest name the projection or the customers service knows (a rename may have landed meanwhile).
          const ref = await customerRefs.link(scopeOf(ctx), customer, session);
          doc.customerName = ref.name;
          doc.customerEmail = ref.email;
        }
        doc.searchText = buildSearchText(input.title, doc.customerName, msgs.map((m) => m.content));
        await Tickets.create([doc], { session });
        if (msgs.length) await Messages.insertMany(msgs, { session });
        emit({ type: 'ticket.created', data: { ticket: ticketSnapshot(doc), messages: msgs.map(messageView) } });
      });
      return ticketView(doc, { messages: msgs });
    },

    async update(ctx: RequestContext, id: string, input: UpdateTicketInput, lookup: CustomerLookup) {
      if (input.status === 'merged') {
        throw parameterInvalid('status', "Invalid status: 'merged' cannot be set through PATCH; only the ticket merge operation sets it.");
      }
      // Moving the ticket to another customer: the customers service says whether it exists (404 otherwise).
      let newCustomer: CustomerSnapshot | null | undefined;
      if (input.customerId !== undefined) {
        newCustomer = input.customerId === null ? null : await lookup.byId(input.customerId);
        if (newCustomer === null && input.customerId !== null) throw notFound('customer', input.customerId);
      }
      const attempt = () => withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
        const cur = await findOr404(ctx, id, session, true);
        const { set, previous, change, changes: changedFields } = changeSet(cur);
        const now = new Date();

        if (input.title !== undefined && input.title !== cur.title) {
          if (charLength(input.title) > TITLE_MAX) {
            throw parameterInvalid('title', `Invalid title: must be at most ${TITLE_MAX} characters.`);
          }
          change('title', input.title);
          set.searchText = replaceTitleInSearchText(cur.searchText ?? '', cur.title, input.title);
        }
        if (newCustomer !== undefined && (newCustomer?.id ?? null) !== (cur.customerId ?? null)) {
          const ref = newCustomer ? await customerRefs.link(scopeOf(ctx), newCustomer, session) : null;
          change('customerId', ref?._id ?? null);
          const title = set.title ?? cur.title;
          set.searchText = replaceCustomerNameInSearchText(set.searchText ?? cur.searchText ?? '', title, cur.customerName ?? null, ref?.name ?? null);
          set.customerName = ref?.name ?? null;
          set.customerEmail = ref?.email ?? null;
        }
        if (input.priority !== undefined) change('priority', input.priority);
        if (input.tags !== undefined) change('tags', input.tags);
        if (input.notes !== undefined) change('notes', input.notes);
        if (input.metadata !== undefined) {
          const merged = mergeKeyValues(cur.metadata ?? {}, input.metadata);
          metadataWithinLimit(merged);
          change('metadata', merged);
        }
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

        const changes = changedFields();
        if (!changes.length) return cur;
        set.updatedAt = now;
        const written = await Tickets.updateOne(
          { _id: id, ...scopeOf(ctx), rev: cur.rev ?? 0 },
          { $set: set, $inc: { rev: 1 } },
          { session },
        );
        if (written.matchedCount !== 1) throw new StaleTicket();
        const next: TicketDoc = { ...cur, ...set, rev: (cur.rev ?? 0) + 1 };
        const ticket = ticketSnapshot(next);
        emit({ type: 'ticket.updated', data: { ticket, changes, previous } });
        // Becoming resolved or closed from any other status (resolved → closed included) also closes.
        if (set.status && CLOSING.has(set.status)) {
          emit({ type: 'ticket.closed', data: { ticket, previousStatus: cur.status } });
        }
        return next;
      });
      for (let n = 1; ; n++) {
        try {
          return ticketView(await attempt());
        } catch (err) {
          if (!(err instanceof StaleTicket) || n >= STALE_RETRIES) throw err;
        }
      }
    },

    async remove(ctx: RequestContext, id: string) {
      await withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
        // The ticket first: that write holds it, so a message being added concurrently either lands
        // before (and is deleted below) or conflicts and then finds no ticket.
        const cur = await Tickets.findOneAndDelete({ _id: id, ...scopeOf(ctx) }, { session }).lean<TicketDoc>();
        if (!cur) throw notFound('ticket', id);
        await Messages.deleteMany({ ...scopeOf(ctx), ticketId: id }, { session });
        emit({ type: 'ticket.deleted', data: { ticketId: id, customerId: cur.customerId ?? null, ticket: ticketSnapshot(cur) } });
      });
      return { id, deleted: true as const };
    },
  };
}

export type TicketService = ReturnType<typeof createTicketService>;
