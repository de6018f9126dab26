import { eventScopeOf, foundOr404, scoped, withOutbox, type RequestContext } from '@helpdesk/kit';
import type { MembershipDoc } from '../customer-groups/members/model';
import { memberSnapshot } from '../customer-groups/members/view';
import type { GroupDoc } from '../customer-groups/model';
import { groupSnapshot } from '../customer-groups/view';
import type { CustomerDoc } from './model';
import type { CustomerStore } from './port';
import { customerSnapshot } from './view';

/**
 * Deletes the customer and its group memberships in one transaction: each group's customerCount
 * goes down and a customer_group.member_removed (reason customer_deleted) is emitted per group,
 * then customer.deleted (ticketing unlinks the customer's tickets on it).
 */
export async function removeCustomer({ conn, models }: CustomerStore, ctx: RequestContext, id: string): Promise<{ id: string; deleted: true }> {
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
}
