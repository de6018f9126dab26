import Stripe from 'stripe';
import { BILLING_PLANS, type BillingPlan, type SubscriptionStatus } from '@helpdesk/contracts';
import type { BillingProvider } from './provider';
import type { SubscriptionChange } from './rules';

/** How the workspace reaches Stripe: the secret key, the webhook signing secret, and (tests) a host to reach instead of api.stripe.com. */
export interface StripeSettings {
  secretKey: string;
  webhookSecret: string;
  /** e.g. `http://127.0.0.1:12111` (a local fake); absent = Stripe itself. */
  apiBase?: string;
}

/** Stripe's statuses that we have no name for, as the nearest of ours (docs/adr/0024). */
const STATUS_OF: Record<string, SubscriptionStatus> = {
  active: 'active',
  trialing: 'trialing',
  past_due: 'past_due',
  canceled: 'canceled',
  unpaid: 'unpaid',
  incomplete: 'past_due',
  incomplete_expired: 'canceled',
  paused: 'past_due',
};

export const SUBSCRIPTION_EVENTS = new Set(['customer.subscription.created', 'customer.subscription.updated', 'customer.subscription.deleted']);

export function stripeClient(settings: StripeSettings): Stripe {
  const base = settings.apiBase ? new URL(settings.apiBase) : null;
  return new Stripe(settings.secretKey, {
    ...(base ? { host: base.hostname, port: Number(base.port || (base.protocol === 'https:' ? 443 : 80)), protocol: base.protocol === 'https:' ? 'https' : 'http' } : {}),
    maxNetworkRetries: 1,
    telemetry: false,
  });
}

/**
 * Stripe: one customer per team (`metadata.teamId`), made when the team first opens the portal; the
 * Billing Portal session is Stripe's. The subscription changes reach us through the webhook
 * (`subscriptionChange`), never through our API.
 */
export function stripeBillingProvider(stripe: Stripe): BillingProvider {
  return {
    name: 'stripe',
    async openPortal({ teamId, current, returnUrl }) {
      const customerId =
        current?.customerId ?? (await stripe.customers.create({ metadata: { teamId } }, { idempotencyKey: `team-customer-${teamId}` })).id;
      const session = await stripe.billingPortal.sessions.create({ customer: customerId, return_url: returnUrl });
      return { url: session.url, customerId };
    },
  };
}

/** The team a Stripe subscription belongs to (its customer's `metadata.teamId`), or null when none of ours. */
export async function teamOfSubscription(stripe: Stripe, sub: Stripe.Subscription): Promise<string | null> {
  if (typeof sub.metadata?.teamId === 'string') return sub.metadata.teamId;
  const customerId = typeof sub.customer === 'string' ? sub.customer : sub.customer.id;
  const customer = await stripe.customers.retrieve(customerId);
  return !customer.deleted && typeof customer.metadata?.teamId === 'string' ? customer.metadata.teamId : null;
}

/** Our copy of a Stripe subscription: its status, the plan named by its price's `lookup_key`, the item's period end. */
export function subscriptionChange(sub: Stripe.Subscription): SubscriptionChange {
  const item = sub.items?.data?.[0];
  const lookup = item?.price?.lookup_key;
  const plan = lookup && (BILLING_PLANS as readonly string[]).includes(lookup) ? (lookup as BillingPlan) : undefined;
  const periodEnd = item?.current_period_end;
  return {
    status: STATUS_OF[sub.status] ?? 'past_due',
    // A price without one of our lookup keys leaves the plan as it was.
    ...(plan ? { plan } : {}),
    currentPeriodEnd: sub.status === 'canceled' || !periodEnd ? null : new Date(periodEnd * 1000),
    cancelAtPeriodEnd: sub.cancel_at_period_end,
    customerId: typeof sub.customer === 'string' ? sub.customer : sub.customer.id,
    subscriptionId: sub.id,
  };
}
