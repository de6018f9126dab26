import type mongoose from 'mongoose';
import {
  ApiError,
  duplicateKeyOf,
  eventScopeOf,
  newUuid,
  notFound,
  pageOf,
  parameterInvalid,
  parameterMissing,
  scopeOf,
  skipOf,
  withOutbox,
  type Pagination,
  type RequestContext,
} from '@helpdesk/kit';
import type { CustomerDoc, CustomerModel } from '../customers/model';
import type { GroupDoc, GroupModel } from '../groups/model';
import type { GroupService } from '../groups/service';
import { groupSnapshot, memberSnapshot, memberView } from '../views';
import type { MembershipDoc, MembershipModel } from './model';
import type { AddMembersInput, ListMembersQuery } from './schema';

export interface MemberDeps {
  conn: mongoose.Connection;
  memberships: MembershipModel;
  groups: GroupModel;
  customers: CustomerModel;
  groupService: GroupService;
}

/** A member add lost a race with a concurrent add of the same member: re-run from a fresh read. */
const DUPLICATE_RETRIES = 5;

export function createMemberService(deps: MemberDeps) {
  const { conn, memberships: Memberships, groups: Groups, customers: Customers, groupService } = deps;

  return {
    /** Newest members first, with each customer's current name and email. */
    async list(ctx: RequestContext, groupId: string, q: ListMembersQuery): Promise<{ items: ReturnType<typeof memberView>[]; pagination: Pagination }> {
      const scope = scopeOf(ctx);
      await groupService.findOr404(scope, groupId);
      const filter = { ...scope, groupId };
      const [total, rows] = await Promise.all([
        Memberships.countDocuments(filter),
        Memberships.find(filter).sort({ joinedGroupAt: -1, customerId: -1 }).skip(skipOf(q.page, q.pageSize)).limit(q.pageSize).lean<MembershipDoc[]>(),
      ]);
      const customers = rows.length
        ? await Customers.find({ ...scope, _id: { $in: rows.map((m) => m.customerId) } }, { name: 1, email: 1 }).lean<CustomerDoc[]>()
        : [];
      const byId = new Map(customers.map((c) => [c._id, c]));
      // A membership always has its customer (a customer's delete removes its memberships in the same transaction).
      const items = rows.flatMap((m) => (byId.has(m.customerId) ? [memberView(m, byId.get(m.customerId)!)] : []));
      return { items, pagination: pageOf(q.page, q.pageSize, total) };
    },

    /**
     * Adds customers to the group in one transaction. Every id must be a customer of the team and
     * partition (else 404 and nothing is written). Ids already members, or repeated in the request,
     * are skipped: `added + skipped = total`, the number of ids sent. One member_added per added member.
     */
    async add(ctx: RequestContext, groupId: string, input: AddMembersInput): Promise<{ added: number; total: number; skipped: number }> {
      if (input.customerId !== undefined && input.customerIds !== undefined) {
        throw parameterInvalid('customerIds', 'Send either customerId or customerIds, not both.');
      }
      const requested = input.customerIds ?? (input.customerId !== undefined ? [input.customerId] : null);
      if (!requested) throw parameterMissing('customerIds', 'Missing required parameter: customerId or customerIds.');
      const wanted = [...new Set(requested)];
      const scope = scopeOf(ctx);

      const attempt = () =>
        withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
          await groupService.findOr404(scope, groupId, session);
          const customers = await Customers.find({ ...scope, _id: { $in: wanted } }, { name: 1, email: 1 }).session(session).lean<CustomerDoc[]>();
          const byId = new Map(customers.map((c) => [c._id, c]));
          const missing = wanted.find((id) => !byId.has(id));
          if (missing !== undefined) throw notFound('customer', missing);
          const already = await Memberships.find({ ...scope, groupId, customerId: { $in: wanted } }, { customerId: 1 }).session(session).lean<MembershipDoc[]>();
          const isMember = new Set(already.map((m) => m.customerId));
          const toAdd = wanted.filter((id) => !isMember.has(id));
          if (toAdd.length) {
            const now = new Date();
            const rows: MembershipDoc[] = toAdd.map((customerId) => ({ _id: newUuid(), ...scope, groupId, customerId, joinedGroupAt: now }));
            await Memberships.insertMany(rows, { session });
            // Writing each customer makes a concurrent delete of one of them conflict with this add.
            const touched = await Customers.updateMany({ ...scope, _id: { $in: toAdd } }, { $inc: { groupCount: 1 } }, { session });
            if (touched.matchedCount !== toAdd.length) throw notFound('customer');
            const group = await Groups.findOneAndUpdate(
              { _id: groupId, ...scope },
              { $inc: { customerCount: toAdd.length } },
              { session, returnDocument: 'after' },
            ).lean<GroupDoc>();
            if (!group) throw notFound('customer group', groupId);
            // Each event shows the group as it was right after that member joined.
            const before = group.customerCount - toAdd.length;
            rows.forEach((m, i) => {
              emit({
                type: 'customer_group.member_added',
                data: { group: groupSnapshot({ ...group, customerCount: before + i + 1 }), member: memberSnapshot(m, byId.get(m.customerId)!) },
              });
            });
          }
          return { added: toAdd.length, total: requested.length, skipped: requested.length - toAdd.length };
        });

      for (let n = 1; ; n++) {
        try {
          return await attempt();
        } catch (err) {
          if (!duplicateKeyOf(err) || n >= DUPLICATE_RETRIES) throw err;
        }
      }
    },

    async remove(ctx: RequestContext, groupId: string, customerId: string) {
      const scope = scopeOf(ctx);
      await withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
        await groupService.findOr404(scope, groupId, session);
        const m = await Memberships.findOneAndDelete({ ...scope, groupId, customerId }, { session }).lean<MembershipDoc>();
        if (!m) throw new ApiError('resource_not_found', `The customer '${customerId}' is not a member of the customer group '${groupId}'.`);
        const group = await Groups.findOneAndUpdate({ _id: groupId, ...scope }, { $inc: { customerCount: -1 } }, { session, returnDocument: 'after' }).lean<GroupDoc>();
        const customer = await Customers.findOneAndUpdate({ _id: customerId, ...scope }, { $inc: { groupCount: -1 } }, { session, returnDocument: 'after' }).lean<CustomerDoc>();
        emit({ type: 'customer_group.member_removed', data: { group: groupSnapshot(group!), member: memberSnapshot(m, customer!), reason: 'removed' } });
      });
      return { removed: true as const, customerId, groupId };
    },
  };
}

export type MemberService = ReturnType<typeof createMemberService>;
