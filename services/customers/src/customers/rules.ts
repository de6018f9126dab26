import type mongoose from 'mongoose';
import type { CreateCustomerInput, CustomerSnapshot, ListCustomersQuery, MessageSnapshot, Page, UpdateCustomerInput } from '@helpdesk/contracts';
import {
  bulkWriteInScopes,
  changeSet,
  conflictOnDuplicate,
  escapeRegex,
  eventScopeOf,
  findPage,
  foundOr404,
  mergeFreeForm,
  newId,
  scoped,
  withOutbox,
  withoutNulls,
  type Emit,
  type RequestContext,
  type Scope,
  type Unscoped,
  type ScopedFilter,
} from '@helpdesk/kit';
import type { MembershipDoc } from '../customer-groups/members/model';
import { memberSnapshot } from '../customer-groups/members/view';
import type { GroupDoc } from '../customer-groups/model';
import { groupSnapshot } from '../customer-groups/view';
import type { StatusRules } from '../customer-statuses/rules';
import type { CustomFieldRules } from '@helpdesk/kit';
import type { CustomersModels } from '../models';
import { customerSearchTokens, type CustomerDoc, type ScoredMessage } from './model';
import { keepNewest, labelOf, scoreMessage } from './sentiment';
import { customerSnapshot, customerView, type CustomerView } from './view';

export interface CustomerRulesDeps {
  conn: mongoose.Connection;
  models: CustomersModels;
  statuses: StatusRules;
  customFields: CustomFieldRules;
}

const EMAIL_TAKEN = { emailLower: { param: 'email', message: 'A customer with this email already exists.' } };

/** A new customer document: status `active`, sentiment `neutral`, no tickets. */
function newCustomer(fields: Pick<CustomerDoc, 'name' | 'email' | 'tags' | 'notes' | 'metadata'>): Unscoped<CustomerDoc> {
  const now = new Date();
  return {
    _id: newId('customer'),
    ...fields,
    emailLower: fields.email === null ? null : fields.email.toLowerCase(),
    ...customerSearchTokens(fields),
    status: 'active',
    sentiment: 'neutral',
    sentimentOverride: null,
    sentimentCalculated: 'neutral',
    sentimentScores: [],
    ticketCount: 0,
    groupCount: 0,
    rev: 0,
    createdAt: now,
    updatedAt: now,
  };
}

/** The rules of customers (docs/adr/0006), and what ticket events do to them. */
export function customerRules({ conn, models, statuses, customFields }: CustomerRulesDeps) {
  async function findOr404(scope: Scope, id: string, session?: mongoose.ClientSession): Promise<CustomerDoc> {
    return foundOr404(scoped(models, scope).customers.findOne({ _id: id }).session(session ?? null).lean<CustomerDoc>(), 'customer', id);
  }

  /** Customers written in one transaction, one `customer.created` each (a taken email refuses them all: a 409 for one, a duplicate-key error for many). */
  async function insert(ctx: RequestContext, docs: Unscoped<CustomerDoc>[], also?: (session: mongoose.ClientSession, emit: Emit) => Promise<void>): Promise<Unscoped<CustomerDoc>[]> {
    const db = scoped(models, ctx);
    await conflictOnDuplicate(
      () =>
        withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
          // One customer: create, whose duplicate-key error names the index (a 409 param email); many: one insertMany.
          if (docs.length === 1) await db.customers.create(docs, { session });
          // Built field by field (newCustomerOf): inserted lean, without hydrating them again (docs/adr/0019).
          else await db.customers.insertMany(docs, { session, lean: true });
          for (const doc of docs) emit({ type: 'customer.created', data: { customer: customerSnapshot(doc) } });
          if (also) await also(session, emit);
        }),
      EMAIL_TAKEN,
    );
    return docs;
  }

  /** A new customer's document from the validated create input (no write yet). */
  async function newCustomerOf(
    ctx: RequestContext,
    input: CreateCustomerInput,
    // Many customers (an import chunk) read the team's field definitions once: customFields.resolverFor.
    resolveFields: (given: Record<string, unknown> | undefined, current: null) => Record<string, unknown> | Promise<Record<string, unknown>> = (given, current) => customFields.resolve(ctx, given, current),
  ): Promise<Unscoped<CustomerDoc>> {
    const doc = newCustomer({
      name: input.name,
      email: input.email,
      tags: input.tags ?? [],
      notes: input.notes ?? null,
      metadata: withoutNulls(input.metadata ?? {}),
    });
    doc.customFields = await resolveFields(input.customFields, null);
    return doc;
  }

  return {
    findOr404,

    /** `sort`: a saved view's order (docs/adr/0035); newest first otherwise. */
    async list(ctx: RequestContext, q: ListCustomersQuery, sort?: Record<string, 1 | -1>): Promise<Page<CustomerView>> {
      const db = scoped(models, ctx);
      const filter: ScopedFilter<CustomerDoc> = {};
      if (q.status !== undefined) {
        await statuses.assertKnown(ctx, q.status, 'status');
        filter.status = q.status;
      }
      if (q.sentiment) filter.sentiment = q.sentiment;
      const search = q.search?.trim();
      if (search) {
        const re = { $regex: escapeRegex(search), $options: 'i' };
        filter.$or = [{ name: re }, { email: re }];
      }
      const { rows, pagination } = await findPage(db.customers, filter, q, { sort });
      return { data: rows.map(customerView), pagination };
    },

    async get(ctx: RequestContext, id: string): Promise<CustomerView> {
      return customerView(await findOr404(ctx, id));
    },

    async create(ctx: RequestContext, input: CreateCustomerInput): Promise<CustomerView> {
      const [doc] = await insert(ctx, [await newCustomerOf(ctx, input)]);
      return customerView(doc);
    },

    /**
     * Import (docs/adr/0037): many customers through the create rule, written in ONE transaction with
     * one `customer.created` each. A refusal (a custom field value, a taken email) refuses them all:
     * the caller validates first and falls back to one by one.
     */
    async createMany(ctx: RequestContext, inputs: readonly CreateCustomerInput[]): Promise<CustomerView[]> {
      const resolveFields = await customFields.resolverFor(ctx);
      const docs = await Promise.all(inputs.map((input) => newCustomerOf(ctx, input, resolveFields)));
      return (await insert(ctx, docs)).map(customerView);
    },

    /** Internal operation: a customer known only by name (a ticket named only `customerName`). */
    async createImplicit(ctx: RequestContext, name: string): Promise<CustomerSnapshot> {
      const [doc] = await insert(ctx, [newCustomer({ name, email: null, tags: [], notes: null, metadata: {} })]);
      return customerSnapshot(doc);
    },

    /** A widget sign-up (docs/adr/0040): a customer with an email not confirmed yet, status `pending`; 409 when the email is taken. */
    async createPending(ctx: RequestContext, name: string, email: string, also?: (session: mongoose.ClientSession, emit: Emit, customer: CustomerSnapshot) => Promise<void>): Promise<CustomerSnapshot> {
      const pending: Unscoped<CustomerDoc> = { ...newCustomer({ name, email, tags: [], notes: null, metadata: {} }), status: 'pending' };
      const [doc] = await insert(ctx, [pending], also && ((session, emit) => also(session, emit, customerSnapshot(pending))));
      return customerSnapshot(doc);
    },

    /** Internal operation: the customer with this email (case-insensitive), or null. */
    async findByEmail(ctx: RequestContext, email: string): Promise<CustomerSnapshot | null> {
      const c = await scoped(models, ctx).customers.findOne({ emailLower: email.trim().toLowerCase() }).lean<CustomerDoc>();
      return c ? customerSnapshot(c) : null;
    },

    async snapshot(ctx: RequestContext, id: string): Promise<CustomerSnapshot> {
      return customerSnapshot(await findOr404(ctx, id));
    },

    async update(ctx: RequestContext, id: string, input: UpdateCustomerInput): Promise<CustomerView> {
      const db = scoped(models, ctx);
      const next = await conflictOnDuplicate(
        () =>
          withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
            const cur = await findOr404(ctx, id, session);
            const { set, previous, change, changes: changedFields } = changeSet<CustomerDoc>(cur);

            if (input.name !== undefined) change('name', input.name);
            if (input.email !== undefined && input.email !== cur.email) {
              change('email', input.email);
              set.emailLower = input.email.toLowerCase();
            }
            if (input.status !== undefined && input.status !== cur.status) {
              await statuses.assertKnown(ctx, input.status, 'status', session);
              change('status', input.status);
            }
            if (input.sentiment !== undefined && input.sentiment !== cur.sentimentOverride) {
              // The override is stored even when it equals the shown value: it pins it against later calculations.
              set.sentimentOverride = input.sentiment;
              change('sentiment', input.sentiment ?? cur.sentimentCalculated);
            }
            if (input.tags !== undefined) change('tags', input.tags);
            if (input.notes !== undefined) change('notes', input.notes);
            if (input.metadata !== undefined) change('metadata', mergeFreeForm(cur.metadata ?? {}, input.metadata, 'metadata'));
            if (input.customFields !== undefined) change('customFields', await customFields.resolve(ctx, input.customFields, cur.customFields ?? {}));

            const changes = changedFields();
            if (changes.includes('name') || changes.includes('email')) Object.assign(set, customerSearchTokens({ name: set.name ?? cur.name, email: set.email !== undefined ? set.email : cur.email }));
            if (!changes.length) {
              if (set.sentimentOverride === undefined) return cur;
              return (await db.customers.findOneAndUpdate({ _id: id }, { $set: set }, { session, returnDocument: 'after' }).lean<CustomerDoc>())!;
            }
            set.updatedAt = new Date();
            const written = await db.customers
              .findOneAndUpdate({ _id: id }, { $set: set, $inc: { rev: 1 } }, { session, returnDocument: 'after' })
              .lean<CustomerDoc>();
            emit({ type: 'customer.updated', data: { customer: customerSnapshot(written!), changes, previous } });
            return written!;
          }),
        EMAIL_TAKEN,
      );
      return customerView(next);
    },

    /**
     * Deletes the customer and its group memberships in one transaction: each group's customerCount
     * goes down and a customer_group.member_removed (reason customer_deleted) is emitted per group,
     * then customer.deleted (ticketing unlinks the customer's tickets on it).
     */
    async remove(ctx: RequestContext, id: string): Promise<{ id: string; deleted: true }> {
      const db = scoped(models, ctx);
      await withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
        // The customer first: this write conflicts with any membership being added for it right now.
        const cur = await foundOr404(db.customers.findOneAndDelete({ _id: id }, { session }).lean<CustomerDoc>(), 'customer', id);
        const memberships = await db.memberships.find({ customerId: id }).sort({ joinedGroupAt: 1, groupId: 1 }).session(session).lean<MembershipDoc[]>();
        if (memberships.length) {
          await db.memberships.deleteMany({ customerId: id }, { session });
          for (const m of memberships) {
            const group = await db.groups
              .findOneAndUpdate({ _id: m.groupId }, { $inc: { customerCount: -1 } }, { session, returnDocument: 'after' })
              .lean<GroupDoc>();
            if (!group) continue;
            emit({
              type: 'customer_group.member_removed',
              data: { group: groupSnapshot(group), member: memberSnapshot(m, cur), reason: 'customer_deleted' },
            });
          }
        }
        const gone = { ...cur, rev: (cur.rev ?? 0) + 1 };
        emit({ type: 'customer.deleted', data: { customerId: id, customer: customerSnapshot(gone) } });
      });
      return { id, deleted: true };
    },

    // ---------- derived from ticket events (consumers/tickets.ts), inside the consumer's transaction ----------

    /**
     * ticketCount += delta for each, in one command (an ordered bulk of `$inc` updates, each customer in
     * its own team and partition; a customer that does not exist (any more) is left alone). Nothing when empty.
     */
    async adjustTicketCounts(adjustments: readonly { scope: Scope; customerId: string; delta: number }[], session: mongoose.ClientSession): Promise<void> {
      if (!adjustments.length) return;
      await bulkWriteInScopes(
        models.customers,
        adjustments.map((a) => ({ scope: a.scope, updateOne: { filter: { _id: a.customerId }, update: { $inc: { ticketCount: a.delta } } } })),
        { session, ordered: true },
      );
    },

    /**
     * Scores the customer's public messages and recalculates its sentiment. When the shown value
     * changes (no override in the way), the customer's rev and updatedAt move and customer.updated
     * is emitted with changes ['sentiment'].
     */
    async addMessages(scope: Scope, customerId: string, messages: MessageSnapshot[], session: mongoose.ClientSession, emit: Emit): Promise<void> {
      const own = messages.filter((m) => m.sender === 'customer' && !m.isInternal);
      if (!own.length) return;
      const customers = scoped(models, scope).customers;
      const cur = await customers.findOne({ _id: customerId }).session(session).lean<CustomerDoc>();
      if (!cur) return;
      const added: ScoredMessage[] = own.map((m) => ({ messageId: m.id, at: new Date(m.createdAt), score: scoreMessage(m.content) }));
      const kept = keepNewest(cur.sentimentScores ?? [], added);
      const calculated = labelOf(kept);
      const shown = cur.sentimentOverride ?? calculated;
      const set: Partial<CustomerDoc> = { sentimentScores: kept, sentimentCalculated: calculated };
      if (shown === cur.sentiment) {
        await customers.updateOne({ _id: customerId }, { $set: set }, { session });
        return;
      }
      const written = await customers
        .findOneAndUpdate({ _id: customerId }, { $set: { ...set, sentiment: shown, updatedAt: new Date() }, $inc: { rev: 1 } }, { session, returnDocument: 'after' })
        .lean<CustomerDoc>();
      emit({ type: 'customer.updated', data: { customer: customerSnapshot(written!), changes: ['sentiment'], previous: { sentiment: cur.sentiment } } });
    },
  };
}

export type CustomerRules = ReturnType<typeof customerRules>;
