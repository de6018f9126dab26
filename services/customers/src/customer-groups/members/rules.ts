import type mongoose from 'mongoose';
import type { AddMembersInput, Page } from '@helpdesk/contracts';
import {
  ApiError,
  duplicateKeyOf,
  eventScopeOf,
  findPage,
  newUuid,
  notFound,
  parameterInvalid,
  parameterMissing,
  retrying,
  scoped,
  withOutbox,
  type RequestContext,
  type Unscoped,
} from '@helpdesk/kit';
import type { CustomerDoc } from '../../customers/model';
import type { CustomersModels } from '../../collections';
import type { GroupDoc } from '../model';
import type { GroupRules } from '../rules';
import { groupSnapshot } from '../view';
import type { MembershipDoc } from './model';
import { memberSnapshot, memberView, type GroupMemberView } from './view';

export interface MemberRulesDeps {
  conn: mongoose.Connection;
  models: CustomersModels;
  groups: GroupRules;
}

/** A member add lost a race with a concurrent add of the same member: re-run from a fresh read. */
const DUPLICATE_RETRIES = 5;

/** The rules of a customer group's members (docs/adr/0006). */
export function memberRules({ conn, models, groups }: MemberRulesDeps) {
  return {
    /** Newest members first, with each customer's current name and email. */
    async list(ctx: RequestContext, groupId: string, q: { page: number; pageSize: number }): Promise<Page<GroupMemberView>> {
      await groups.findOr404(ctx, groupId);
      const db = scoped(models, ctx);
      const { rows, pagination } = await findPage(db.memberships, { groupId }, q, { sort: { joinedGroupAt: -1, customerId: -1 } });
      const customers = rows.length
        ? await db.customers.find({ _id: { $in: rows.map((m) => m.customerId) } }, { name: 1, email: 1 }).lean<CustomerDoc[]>()
        : [];
      const byId = new Map(customers.map((c) => [c._id, c]));
      // A membership always has its customer (a customer's delete removes its memberships in the same transaction).
      const data = rows.flatMap((m) => (byId.has(m.customerId) ? [memberView(m, byId.get(m.customerId)!)] : []));
      return { data, pagination };
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
      const db = scoped(models, ctx);

      const attempt = () =>
        withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
          await groups.findOr404(ctx, groupId, session);
          const customers = await db.customers.find({ _id: { $in: wanted } }, { name: 1, email: 1 }).session(session).lean<CustomerDoc[]>();
          const byId = new Map(customers.map((c) => [c._id, c]));
          const missing = wanted.find((id) => !byId.has(id));
          if (missing !== undefined) throw notFound('customer', missing);
          const already = await db.memberships.find({ groupId, customerId: { $in: wanted } }, { customerId: 1 }).session(session).lean<MembershipDoc[]>();
          const isMember = new Set(already.map((m) => m.customerId));
          const toAdd = wanted.filter((id) => !isMember.has(id));
          if (toAdd.length) {
            const now = new Date();
            const rows: Unscoped<MembershipDoc>[] = toAdd.map((customerId) => ({ _id: newUuid(), groupId, customerId, joinedGroupAt: now }));
            await db.memberships.insertMany(rows, { session });
            // Writing each customer makes a concurrent delete of one of them conflict with this add.
            const touched = await db.customers.updateMany({ _id: { $in: toAdd } }, { $inc: { groupCount: 1 } }, { session });
            if (touched.matchedCount !== toAdd.length) throw notFound('customer');
            const group = await db.groups
              .findOneAndUpdate({ _id: groupId }, { $inc: { customerCount: toAdd.length } }, { session, returnDocument: 'after' })
              .lean<GroupDoc>();
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

      return retrying(attempt, (err) => duplicateKeyOf(err) !== null, DUPLICATE_RETRIES);
    },

    async remove(ctx: RequestContext, groupId: string, customerId: string): Promise<{ removed: true; customerId: string; groupId: string }> {
      const db = scoped(models, ctx);
      await withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
        await groups.findOr404(ctx, groupId, session);
        const m = await db.memberships.findOneAndDelete({ groupId, customerId }, { session }).lean<MembershipDoc>();
        if (!m) throw new ApiError('resource_not_found', `The customer '${customerId}' is not a member of the customer group '${groupId}'.`);
        const group = await db.groups.findOneAndUpdate({ _id: groupId }, { $inc: { customerCount: -1 } }, { session, returnDocument: 'after' }).lean<GroupDoc>();
        const customer = await db.customers
          .findOneAndUpdate({ _id: customerId }, { $inc: { groupCount: -1 } }, { session, returnDocument: 'after' })
          .lean<CustomerDoc>();
        emit({ type: 'customer_group.member_removed', data: { group: groupSnapshot(group!), member: memberSnapshot(m, customer!), reason: 'removed' } });
      });
      return { removed: true, customerId, groupId };
    },
  };
}

export type MemberRules = ReturnType<typeof memberRules>;
