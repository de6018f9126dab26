import type mongoose from 'mongoose';
import type { CustomerSnapshot, CUSTOMERS_INTERNAL, EventEnvelope } from '@helpdesk/contracts';
import { CONSUMER_TRANSACTION_GIVE_UP_MS, eventScopeOf, foundOr404, inTransaction, notFound, scoped, withOutbox, type InternalCalls, type Scope } from '@helpdesk/kit';
import type { TicketingModels } from '../collections';
import { replaceCustomerNameInSearchText, ticketSearchTokens, type TicketDoc } from '../tickets/model';
import { ticketSnapshot } from '../tickets/view';
import { factsOf, refFields, type CustomerFacts, type CustomerRefDoc } from './model';

/** The customers service's internal operations, bound to the request that needs an answer now. */
export type CustomerCalls = InternalCalls<typeof CUSTOMERS_INTERNAL>;

/** The customers service's client: its calls for one request (the caller's token and request id). */
export interface CustomerClient {
  forRequest(token: string, requestId: string): CustomerCalls;
}

export interface CustomerRefsDeps {
  conn: mongoose.Connection;
  models: TicketingModels;
}

/** A ticket's new search text with its search words (docs/adr/0034). */
const searchTextOf = (title: string, searchText: string) => ({ searchText, ...ticketSearchTokens({ title, searchText }) });

/** Tickets unlinked per transaction when a customer is deleted (a customer may have many). */
const UNLINK_BATCH = 200;

/**
 * The rules of ticketing's projection of customers (docs/adr/0004). Every link (ticket create or
 * move) and every deletion writes the customer's projection row inside its transaction, so the two
 * conflict and one of them re-runs: a ticket can never stay linked to a customer whose deletion
 * ticketing has seen.
 */
export function customerRefsRules({ conn, models }: CustomerRefsDeps) {
  /** Tickets of a customer whose denormalised name or email differ from `ref`: rewrite them (no ticket event: neither is a ticket field). */
  async function syncTickets(scope: Scope, ref: Pick<CustomerRefDoc, '_id' | 'name' | 'email'>, session: mongoose.ClientSession) {
    const db = scoped(models, scope);
    const stale = await db.tickets
      .find({ customerId: ref._id, $or: [{ customerName: { $ne: ref.name } }, { customerEmail: { $ne: ref.email } }] }, { title: 1, customerName: 1, searchText: 1 })
      .session(session)
      .lean<Pick<TicketDoc, '_id' | 'title' | 'customerName' | 'searchText'>[]>();
    if (!stale.length) return;
    await db.tickets.bulkWrite(
      stale.map((t) => ({
        updateOne: {
          filter: { _id: t._id },
          update: {
            $set: { customerName: ref.name, customerEmail: ref.email, ...searchTextOf(t.title, replaceCustomerNameInSearchText(t.searchText, t.title, t.customerName, ref.name)) },
            $inc: { rev: 1 },
          },
        },
      })),
      { session },
    );
  }

  return {
    /**
     * The customer a ticket's create or move names by id (docs/adr/0055): from the projection when
     * ticketing has heard of it (no call: tickets are still created while the customers service is
     * down), 404 when its deletion has been seen; only an id the projection has never seen is asked
     * of the customers service (404 when it has no such customer, 503 when it cannot answer), and its
     * answer is recorded so the next ticket of that customer needs no call either.
     */
    async lookup(scope: Scope, id: string, customers: CustomerCalls): Promise<CustomerFacts> {
      const row = await scoped(models, scope).customerRefs.leanFindOne<CustomerRefDoc>({ _id: id });
      if (row) {
        if (row.deleted) throw notFound('customer', id);
        return factsOf(row);
      }
      const c = await foundOr404(customers.call('getCustomerSnapshot', { params: { customerId: id } }), 'customer', id);
      // First sight: an event (or a deletion) recorded meanwhile is newer news and stays; so does a
      // concurrent first sight's row (the duplicate key of a lost upsert race).
      await scoped(models, scope)
        .customerRefs.updateOne({ _id: id }, { $setOnInsert: { ...refFields(c), deleted: false, linkedAt: null } }, { upsert: true })
        .catch((err: unknown) => {
          if ((err as { code?: number }).code !== 11000) throw err;
        });
      return c;
    },

    /**
     * Inside a ticket's transaction: records the link on the projection row (creating it from the
     * customers service's answer `c` when absent, refreshing it when `c` is newer) and returns the
     * newest view of the customer; 404 when its deletion has been seen.
     */
    async link(scope: Scope, c: CustomerFacts, session: mongoose.ClientSession): Promise<CustomerRefDoc> {
      const refs = scoped(models, scope).customerRefs;
      const row = await refs
        .findOneAndUpdate({ _id: c.id }, { $setOnInsert: { ...refFields(c), deleted: false }, $set: { linkedAt: new Date() } }, { upsert: true, returnDocument: 'after', session })
        .lean<CustomerRefDoc>();
      if (!row || row.deleted) throw notFound('customer', c.id);
      if (c.rev <= row.rev) return row;
      await refs.updateOne({ _id: c.id }, { $set: refFields(c) }, { session });
      return { ...row, ...refFields(c) };
    },

    /**
     * `link` for many tickets' customers at once (an import chunk, docs/adr/0037), in three round
     * trips whatever their number: the links upserted, the rows read back, the older ones refreshed.
     * Answers the newest view per customer id; 404 (the whole chunk) when a deletion has been seen.
     */
    async linkMany(scope: Scope, cs: readonly CustomerFacts[], session: mongoose.ClientSession): Promise<Map<string, CustomerRefDoc>> {
      const refs = scoped(models, scope).customerRefs;
      const newest = new Map<string, CustomerFacts>();
      for (const c of cs) if ((newest.get(c.id)?.rev ?? -1) < c.rev) newest.set(c.id, c);
      if (!newest.size) return new Map();
      const linkedAt = new Date();
      await refs.bulkWrite(
        [...newest.values()].map((c) => ({
          updateOne: { filter: { _id: c.id }, update: { $setOnInsert: { ...refFields(c), deleted: false }, $set: { linkedAt } }, upsert: true },
        })),
        { session, ordered: false },
      );
      const rows = await refs.find({ _id: { $in: [...newest.keys()] } }).session(session).lean<CustomerRefDoc[]>();
      const gone = rows.find((r) => r.deleted);
      if (gone) throw notFound('customer', gone._id);
      const stale = rows.filter((r) => newest.get(r._id)!.rev > r.rev);
      if (stale.length) {
        await refs.bulkWrite(
          stale.map((r) => ({ updateOne: { filter: { _id: r._id }, update: { $set: refFields(newest.get(r._id)!) } } })),
          { session, ordered: false },
        );
      }
      return new Map(rows.map((r) => [r._id, stale.includes(r) ? { ...r, ...refFields(newest.get(r._id)!) } : r]));
    },

    /** `customer.created` / `customer.updated`: newer snapshots update the row and the linked tickets' search text. */
    async apply(event: EventEnvelope, c: CustomerSnapshot): Promise<void> {
      const refs = scoped(models, event).customerRefs;
      // A consumer's unit of work: bounded retries, so a locked row sends the event back to the broker.
      await inTransaction(conn, async (session) => {
        const row = await refs.findOne({ _id: c.id }).session(session).lean<CustomerRefDoc>();
        if (row && (row.deleted || row.rev >= c.rev)) return;
        await refs.updateOne({ _id: c.id }, { $set: refFields(c), $setOnInsert: { deleted: false, linkedAt: null } }, { upsert: true, session });
        await syncTickets(event, { _id: c.id, name: c.name, email: c.email }, session);
      }, { giveUpAfterMs: CONSUMER_TRANSACTION_GIVE_UP_MS });
    },

    /**
     * `customer.deleted`: the tombstone first (no new link commits after it), then the tickets are
     * unlinked in batches, each ticket's change and its `ticket.updated` in one transaction. Re-running
     * after a crash picks up the tickets still linked; nothing is unlinked twice.
     */
    async unlinkDeleted(event: EventEnvelope, c: CustomerSnapshot): Promise<number> {
      const db = scoped(models, event);
      await db.customerRefs.updateOne({ _id: c.id }, { $set: { ...refFields(c), deleted: true }, $setOnInsert: { linkedAt: null } }, { upsert: true });
      let unlinked = 0;
      for (;;) {
        const n = await withOutbox(conn, eventScopeOf(event), async (session, emit) => {
          const batch = await db.tickets.find({ customerId: c.id }).session(session).limit(UNLINK_BATCH).lean<TicketDoc[]>();
          const now = new Date();
          for (const t of batch) {
            const next: TicketDoc = {
              ...t,
              customerId: null,
              customerName: null,
              customerEmail: null,
              searchText: replaceCustomerNameInSearchText(t.searchText, t.title, t.customerName, null),
              updatedAt: now,
              rev: (t.rev ?? 0) + 1,
            };
            const { customerId, customerName, customerEmail, searchText, updatedAt } = next;
            await db.tickets.updateOne({ _id: t._id }, { $set: { customerId, customerName, customerEmail, ...searchTextOf(t.title, searchText), updatedAt }, $inc: { rev: 1 } }, { session });
            emit({ type: 'ticket.updated', data: { ticket: ticketSnapshot(next), changes: ['customerId'], previous: { customerId: c.id } } });
          }
          return batch.length;
        }, { consumer: true });
        unlinked += n;
        if (n < UNLINK_BATCH) return unlinked;
      }
    },
  };
}

export type CustomerRefs = ReturnType<typeof customerRefsRules>;
