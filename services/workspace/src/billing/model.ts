import mongoose from 'mongoose';
import { BILLING_PLANS, SUBSCRIPTION_STATUSES, type BillingPlan, type SubscriptionStatus, type Partition } from '@helpdesk/contracts';
import { tenancyPlugin } from '@helpdesk/kit';

/**
 * A team's subscription (team-wide, ../collections.ts): at most one per team, written the
 * first time it changes; a team without one is on `free`, `active` (docs/adr/0024). `customerId`
 * and `subscriptionId` are the provider's (Stripe's `cus_…`/`sub_…`), null for the local provider.
 */
export interface SubscriptionDoc {
  _id: mongoose.Types.ObjectId;
  teamId: string;
  mode: Partition;
  status: SubscriptionStatus;
  plan: BillingPlan;
  currentPeriodEnd: Date | null;
  cancelAtPeriodEnd: boolean;
  provider: 'local' | 'stripe';
  customerId: string | null;
  subscriptionId: string | null;
  /** When the provider's newest applied change happened (Stripe's event `created`): older ones arriving late are skipped. */
  providerChangedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

const subscriptionSchema = new mongoose.Schema<SubscriptionDoc>(
  {
    status: { type: String, enum: SUBSCRIPTION_STATUSES, required: true },
    plan: { type: String, enum: BILLING_PLANS, required: true },
    currentPeriodEnd: { type: Date, default: null },
    cancelAtPeriodEnd: { type: Boolean, required: true },
    provider: { type: String, enum: ['local', 'stripe'], required: true },
    customerId: { type: String, default: null },
    subscriptionId: { type: String, default: null },
    providerChangedAt: { type: Date, default: null },
    createdAt: { type: Date, required: true },
    updatedAt: { type: Date, required: true },
  },
  { collection: 'subscriptions', versionKey: false, strict: 'throw' },
);
subscriptionSchema.plugin(tenancyPlugin);
subscriptionSchema.index({ teamId: 1, mode: 1 }, { unique: true });

/**
 * A local portal session: the SHA-256 of the secret in the page's URL (the secret itself is never
 * stored), the one `returnUrl` the page may send the browser to, and when it stops working.
 */
export interface PortalSessionDoc {
  _id: string;
  teamId: string;
  mode: Partition;
  returnUrl: string;
  expiresAt: Date;
  createdAt: Date;
}

const portalSessionSchema = new mongoose.Schema<PortalSessionDoc>(
  {
    _id: { type: String, required: true },
    returnUrl: { type: String, required: true },
    expiresAt: { type: Date, required: true },
    createdAt: { type: Date, required: true },
  },
  { collection: 'billing_portal_sessions', versionKey: false, strict: 'throw' },
);
portalSessionSchema.plugin(tenancyPlugin);
// Expired sessions go by themselves; reads also check `expiresAt` (the TTL monitor runs once a minute).
portalSessionSchema.index({ expiresAt: 1 }, { expireAfterSeconds: 0 });

export type SubscriptionModel = mongoose.Model<SubscriptionDoc>;
export type PortalSessionModel = mongoose.Model<PortalSessionDoc>;

export function subscriptionModel(conn: mongoose.Connection): SubscriptionModel {
  return (conn.models.Subscription as SubscriptionModel | undefined) ?? conn.model<SubscriptionDoc>('Subscription', subscriptionSchema);
}
export function portalSessionModel(conn: mongoose.Connection): PortalSessionModel {
  return (conn.models.BillingPortalSession as PortalSessionModel | undefined) ?? conn.model<PortalSessionDoc>('BillingPortalSession', portalSessionSchema);
}
