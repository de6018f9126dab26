import type mongoose from 'mongoose';
import type { CustomerSnapshot, MessageSnapshot } from '@helpdesk/contracts';
import {
  changeSet,
  conflictOnDuplicate,
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
  withOutbox,
  type Emit,
  type Pagination,
  type RequestContext,
  type Scope,
} from '@helpdesk/kit';
import type { GroupDoc, GroupModel } from '../groups/model';
import type { MembershipDoc, MembershipModel } from '../members/model';
import type { StatusService } from '../statuses/service';
import { customerSnapshot, customerView, groupSnapshot, memberSnapshot } from '../views';
import type { CustomerDoc, CustomerModel, ScoredMessage } from './model';
import type { CreateCustomerInput, ListCustomersQuery, UpdateCustomerInput } from './schema';
import { keepNewest, labelOf, scoreMessage } from './sentiment';

export interface CustomerDeps {
  conn: mongoose.Connection;
  customers: CustomerModel;
  groups: GroupModel;
  memberships: MembershipModel;
  statuses: StatusService;
}

const EMAIL_TAKEN = { emailLower: { param: 'email', message: 'A customer with this email already exists.' } };

export function createCustomerService(deps: CustomerDeps) {
  const { conn, customers: Customers, groups: Groups, memberships: Memberships, statuses } = deps;

  async function findOr404(scope: Scope, id: string, session?: mongoose.ClientSession): Promise<CustomerDoc> {
    const c = await Customers.findOne({ _id: id, ...scope }).session(session ?? null).lean<CustomerDoc>();
    if (!c) throw notFound('customer', id);
    return c;
  }

  /** A new customer document: status `active`, sentiment `neutral`, no tickets. */
  function newCustomer(scope: Scope, fields: Pick<CustomerDoc, 'name' | 'email' | 'tags' | 'notes' | 'metadata'>): CustomerDoc {
    const now = new Date();
    return {
      _id: newId('customer'),
      ...scope,
      ...fields,
      emailLower: fields.email === null ? null : fields.email.toLowerCase(),
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

  async function insert(ctx: RequestContext, doc: CustomerDoc): Promise<CustomerDoc> {
    await conflictOnDuplicate(
      () =>
        withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
          await Customers.create([doc], { session });
          emit({ type: 'customer.created', data: { customer: customerSnapshot(doc) } });
        }),
      EMAIL_TAKEN,
    );
    return doc;
  }

  return {
    findOr404,

    async list(ctx: RequestContext, q: ListCustomersQuery): Promise<{ items: ReturnType<typeof customerView>[]; pagination: Pagination }> {
      const filter: Record<string, unknown> = { ...scopeOf(ctx) };
      if (q.status !== undefined) {
        await statuses.assertKnown(scopeOf(ctx), q.status, 'status');
        filter.status = q.status;
      }
      if (q.sentiment) filter.sentiment = q.sentiment;
      const search = q.search?.trim();
      if (search) {
        const re = { $regex: escapeRegex(search), $options: 'i' };
        filter.$or = [{ name: re }, { email: re }];
      }
      const [total, rows] = await Promise.all([
        Customers.countDocuments(filter),
        Customers.find(filter).sort({ createdAt: -1, _id: -1 }).skip(skipOf(q.page, q.pageSize)).limit(q.pageSize).lean<CustomerDoc[]>(),
      ]);
      return { items: rows.map(customerView), pagination: pageOf(q.page, q.pageSize, total) };
    },

    async get(ctx: RequestContext, id: string) {
      return customerView(await findOr404(scopeOf(ctx), id));
    },

    async create(ctx: RequestContext, input: CreateCustomerInput) {
      const doc = newCustomer(scopeOf(ctx), {
        name: input.name,
        email: input.email,
        tags: input.tags ?? [],
        notes: input.notes ?? null,
        metadata: withoutNulls(input.metadata ?? {}),
      });
      return customerView(await insert(ctx, doc));
    },

    /** Internal endpoint: a customer known only by name (a ticket named only `customerName`). */
    async createImplicit(ctx: RequestContext, name: string): Promise<CustomerSnapshot> {
      return customerSnapshot(await insert(ctx, newCustomer(scopeOf(ctx), { name, email: null, tags: [], notes: null, metadata: {} })));
    },

    /** Internal endpoint: the customer with this email (case-insensitive), or null. */
    async findByEmail(ctx: RequestContext, email: string): Promise<CustomerSnapshot | null> {
      const c = await Customers.findOne({ ...scopeOf(ctx), emailLower: email.trim().toLowerCase() }).lean<CustomerDoc>();
      return c ? customerSnapshot(c) : null;
    },

    async snapshot(ctx: RequestContext, id: string): Promise<CustomerSnapshot> {
      return customerSnapshot(await findOr404(scopeOf(ctx), id));
    },

    async update(ctx: RequestContext, id: string, input: UpdateCustomerInput) {
      const scope = scopeOf(ctx);
      const next = await conflictOnDuplicate(
        () =>
          withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
            const cur = await findOr404(scope, id, session);
            const { set, previous, change, changes: changedFields } = changeSet<CustomerDoc>(cur);

            if (input.name !== undefined) change('name', input.name);
            if (input.email !== undefined && input.email !== cur.email) {
              change('email', input.email);
              set.emailLower = input.email.toLowerCase();
            }
            if (input.status !== undefined && input.status !== cur.status) {
              await statuses.assertKnown(scope, input.status, 'status', session);
              change('status', input.status);
            }
            if (input.sentiment !== undefined && input.sentiment !== cur.sentimentOverride) {
              // The override is stored even when it equals the shown value: it pins it against later calculations.
              set.sentimentOverride = input.sentiment;
              change('sentiment', input.sentiment ?? cur.sentimentCalculated);
            }
            if (input.tags !== undefined) change('tags', input.tags);
            if (input.notes !== undefined) change('notes', input.notes);
            if (input.metadata !== undefined) {
              const merged = mergeKeyValues(cur.metadata ?? {}, input.metadata);
              if (Object.keys(merged).length > OBJECT_KEYS_MAX) {
                throw parameterInvalid('metadata', `Invalid metadata: at most ${OBJECT_KEYS_MAX} keys after merging.`);
              }
              change('metadata', merged);
            }

            const changes = changedFields();
            if (!changes.length) {
              if (set.sentimentOverride === undefined) return cur;
              return (await Customers.findOneAndUpdate({ _id: id, ...scope }, { $set: set }, { session, returnDocument: 'after' }).lean<CustomerDoc>())!;
            }
            set.updatedAt = new Date();
            const written = await Customers.findOneAndUpdate(
              { _id: id, ...scope },
              { $set: set, $inc: { rev: 1 } },
              { session, returnDocument: 'after' },
            ).lean<CustomerDoc>();
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
    async remove(ctx: RequestContext, id: string) {
      const scope = scopeOf(ctx);
      await withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
        // The customer first: this write conflicts with any membership being added for it right now.
        const cur = await Customers.findOneAndDelete({ _id: id, ...scope }, { session }).lean<CustomerDoc>();
        if (!cur) throw notFound('customer', id);
        const memberships = await Memberships.find({ ...scope, customerId: id }).sort({ joinedGroupAt: 1, groupId: 1 }).session(session).lean<MembershipDoc[]>();
        if (memberships.length) {
          await Memberships.deleteMany({ ...scope, customerId: id }, { session });
          for (const m of memberships) {
            const group = await Groups.findOneAndUpdate(
              { _id: m.groupId, ...scope },
              { $inc: { customerCount: -1 } },
              { session, returnDocument: 'after' },
            ).lean<GroupDoc>();
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
      return { id, deleted: true as const };
    },

    // ---------- derived from ticket events (consumers/tickets.ts), inside the consumer's transaction ----------

    /** ticketCount += delta; a customer that does not exist (any more) is left alone. */
    async adjustTicketCount(scope: Scope, customerId: string, delta: number, session: mongoose.ClientSession): Promise<void> {
      await Customers.updateOne({ _id: customerId, ...scope }, { $inc: { ticketCount: delta } }, { session });
    },

    /**
     * Scores the customer's public messages and recalculates its sentiment. When the shown value
     * changes (no override in the way), the customer's rev and updatedAt move and customer.updated
     * is emitted with changes ['sentiment'].
     */
    async addMessages(scope: Scope, customerId: string, messages: MessageSnapshot[], session: mongoose.ClientSession, emit: Emit): Promise<void> {
      const own = messages.filter((m) => m.sender === 'customer' && !m.isInternal);
      if (!own.length) return;
      const cur = await Customers.findOne({ _id: customerId, ...scope }).session(session).lean<CustomerDoc>();
      if (!cur) return;
      const added: ScoredMessage[] = own.map((m) => ({ messageId: m.id, at: new Date(m.createdAt), score: scoreMessage(m.content) }));
      const kept = keepNewest(cur.sentimentScores ?? [], added);
      const calculated = labelOf(kept);
      const shown = cur.sentimentOverride ?? calculated;
      const set: Partial<CustomerDoc> = { sentimentScores: kept, sentimentCalculated: calculated };
      if (shown === cur.sentiment) {
        await Customers.updateOne({ _id: customerId, ...scope }, { $set: set }, { session });
        return;
      }
      const written = await Customers.findOneAndUpdate(
        { _id: customerId, ...scope },
        { $set: { ...set, sentiment: shown, updatedAt: new Date() }, $inc: { rev: 1 } },
        { session, returnDocument: 'after' },
      ).lean<CustomerDoc>();
      emit({ type: 'customer.updated', data: { customer: customerSnapshot(written!), changes: ['sentiment'], previous: { sentiment: cur.sentiment } } });
    },
  };
}

export type CustomerService = ReturnType<typeof createCustomerService>;
