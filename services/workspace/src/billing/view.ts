import type { BillingPlan, SubscriptionSnapshot } from '@helpdesk/contracts';
import type { SubscriptionDoc } from './model';

/** What a team without a subscription document has: the free plan, active, no period (docs/adr/0024). */
export const FREE_SUBSCRIPTION = { status: 'active', plan: 'free', currentPeriodEnd: null, cancelAtPeriodEnd: false } as const;

export type SubscriptionState = Pick<SubscriptionDoc, 'status' | 'plan' | 'currentPeriodEnd' | 'cancelAtPeriodEnd'>;

export const subscriptionView = (s: SubscriptionState, memberCount: number): SubscriptionSnapshot => ({
  object: 'subscription',
  status: s.status,
  plan: s.plan,
  memberCount,
  currentPeriodEnd: s.currentPeriodEnd ? new Date(s.currentPeriodEnd).toISOString() : null,
  cancelAtPeriodEnd: s.cancelAtPeriodEnd,
});

/** The plans the portal offers, with their display name and price per member and month. */
export const PLAN_CATALOG: { plan: BillingPlan; name: string; pricePerMember: string }[] = [
  { plan: 'free', name: 'Free', pricePerMember: '0.00 USD' },
  { plan: 'team', name: 'Team', pricePerMember: '15.00 USD' },
  { plan: 'business', name: 'Business', pricePerMember: '39.00 USD' },
];
