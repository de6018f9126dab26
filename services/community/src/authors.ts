import type { CommunityAuthor, CUSTOMERS_INTERNAL } from '@helpdesk/contracts';
import { ApiError, type internalClient, type RequestContext } from '@helpdesk/kit';

export type CustomersClient = ReturnType<typeof internalClient<typeof CUSTOMERS_INTERNAL>>;

/** The staff behind a request: its member, or the key itself while keys have no member (docs/adr/0017). */
export const staffOf = (ctx: RequestContext): CommunityAuthor =>
  ctx.memberId ? { type: 'member', id: ctx.memberId } : { type: 'key', id: ctx.keyId };

export const isStaff = (a: CommunityAuthor) => a.type !== 'customer';

/** `member:mem_…`, `key:key_…`, `customer:cus_…`: one voter's identity. */
export const authorKey = (a: CommunityAuthor) => `${a.type}:${a.id}`;

/**
 * Who writes: the caller, or with `customerId` that customer of the team, asked of the customers
 * service (404 naming customerId when the team and partition have no such customer).
 */
export function authorRules(customers: CustomersClient) {
  return {
    async of(ctx: RequestContext, token: string, customerId: string | undefined): Promise<CommunityAuthor> {
      if (customerId === undefined) return staffOf(ctx);
      const customer = await customers.forRequest(token, ctx.requestId).call('getCustomerSnapshot', { params: { customerId } });
      if (!customer) throw new ApiError('resource_not_found', `No such customer: '${customerId}'.`, 'customerId');
      return { type: 'customer', id: customer.id };
    },
  };
}
export type AuthorRules = ReturnType<typeof authorRules>;
