import type { SubscriptionDoc } from './model';

/**
 * Where a team's subscription is kept and paid (docs/adr/0024). The subscription document here is
 * the platform's copy; the provider changes it through `rules.applyChange` (the local portal page, or
 * Stripe's webhook), never through the API.
 */
export interface BillingProvider {
  readonly name: 'local' | 'stripe';
  /**
   * A portal session for the team that sends the browser back to `returnUrl`. `customerId` is the
   * provider's customer the session was opened for, when it made one (stored on the subscription).
   */
  openPortal(input: { teamId: string; current: SubscriptionDoc | null; returnUrl: string }): Promise<{ url: string; customerId?: string }>;
}
