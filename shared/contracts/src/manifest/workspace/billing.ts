import { z } from 'zod';
import { BILLING_PLANS, subscriptionSnapshotSchema } from '../../catalog/workspace';
import { defineOperations } from '../operation';
import { billing, internal, PER_TEAM, team, WRITE } from './common';

/** Billing: the subscription, the portal and Stripe's webhook (docs/adr/0024). */

export const subscriptionSchema = subscriptionSnapshotSchema.meta({ id: 'Subscription' });
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);
/**
 * Where the portal sends the browser back: https, or http on a loopback host (development). Never
 * credentials in it. The page only ever redirects to the URL stored with its session (docs/adr/0024).
 */
export const returnUrlField = z
  .url({ protocol: /^https?$/ })
  .max(2_000)
  .refine(
    (v) => {
      // zod runs this even when the url check failed: a value URL cannot parse is simply refused.
      let u: URL;
      try {
        u = new URL(v);
      } catch {
        return false;
      }
      return !u.username && !u.password && (u.protocol === 'https:' || LOOPBACK_HOSTS.has(u.hostname));
    },
    { message: 'must be an https URL (or http on 127.0.0.1, localhost or [::1]) without credentials' },
  );
export const createBillingPortalBody = z.strictObject({ returnUrl: returnUrlField });
/** A portal session's secret (in the page's URL): `bps_` and 43 base64url characters. */
export const PORTAL_SESSION_RE = /^bps_[A-Za-z0-9_-]{43}$/;
const portalSession = z.string().regex(PORTAL_SESSION_RE, { message: 'must be a billing portal session' });
/** What the portal page shows: the plans, the subscription, where to go back. */
export const billingPortalPageSchema = z.object({
  subscription: subscriptionSnapshotSchema,
  plans: z.array(z.object({ plan: z.enum(BILLING_PLANS), name: z.string(), pricePerMember: z.string() })),
  returnUrl: z.string(),
});
export const billingPortalActionBody = z.strictObject({
  session: portalSession,
  action: z.enum(['choose_plan', 'cancel']),
  plan: z.enum(BILLING_PLANS).optional(),
});
export type BillingPortalAction = z.output<typeof billingPortalActionBody>;
/** Stripe's webhook bodies are small; anything larger is not from it. */
export const STRIPE_WEBHOOK_MAX_BYTES = 256 * 1024;
export const billingPortalSchema = z.object({ object: z.literal('billing_portal'), url: z.string() }).meta({ id: 'BillingPortal' });


export const BILLING = defineOperations({
  getSubscription: {
    ...billing,
    method: 'GET',
    path: '/teams/{teamId}/billing/subscription',
    summary: "The team's subscription",
    description:
      '`status` (`active`, `trialing`, `past_due`, `canceled`, `unpaid`), `plan` (`free` until one is chosen in the portal), ' +
      '`memberCount` (the team\'s members now), `currentPeriodEnd` (null on `free`) and `cancelAtPeriodEnd`. Reads and writes keep ' +
      'working in every status (docs/adr/0024). ' + PER_TEAM,
    permission: 'manage_billing',
    params: team,
    success: { status: 200, data: subscriptionSchema, shape: 'envelope' },
    errors: [],
  },
  createBillingPortal: {
    ...billing,
    method: 'POST',
    path: '/teams/{teamId}/billing/portal',
    summary: 'Open a billing portal session',
    description:
      'Answers `{object: billing_portal, url}`: a single page, valid for one hour, where a plan can be chosen or the subscription ' +
      'cancelled; it then sends the browser to `returnUrl` (https, or http on a loopback host; never credentials). The page only ' +
      'ever redirects to the `returnUrl` given here, so it cannot be used as an open redirect. A change there emits ' +
      '`billing.subscription_updated` (docs/adr/0024). ' + PER_TEAM,
    permission: 'manage_billing',
    params: team,
    body: createBillingPortalBody,
    success: { status: 200, data: billingPortalSchema, shape: 'envelope' },
    errors: [...WRITE],
  },
});


export const BILLING_INTERNAL = defineOperations({
  getBillingPortalPage: {
    ...internal,
    tag: 'Billing',
    method: 'GET',
    path: '/internal/billing/portal',
    summary: "A local billing portal session's page: the subscription and the plans (404 when unknown or expired)",
    permission: null,
    params: {},
    query: z.strictObject({ session: portalSession }),
    success: { status: 200, data: billingPortalPageSchema, shape: 'envelope' },
    errors: ['parameter_invalid', 'resource_not_found'],
  },
  actOnBillingPortal: {
    ...internal,
    tag: 'Billing',
    method: 'POST',
    path: '/internal/billing/portal',
    summary: 'A plan chosen or the subscription cancelled on the local portal page; answers the page again (with its returnUrl)',
    permission: null,
    params: {},
    body: billingPortalActionBody,
    success: { status: 200, data: billingPortalPageSchema, shape: 'envelope' },
    errors: ['parameter_missing', 'parameter_invalid', 'resource_not_found'],
  },
  receiveStripeWebhook: {
    ...internal,
    tag: 'Billing',
    method: 'POST',
    path: '/internal/billing/stripe-webhook',
    summary:
      "Stripe's webhook as the gateway received it (the raw body and its Stripe-Signature header): verified with the SDK, " +
      'a customer.subscription.* event updates its team\'s subscription. 404 with the local provider; 400 param signature when it does not verify',
    permission: null,
    params: {},
    body: z.strictObject({ payload: z.string().max(STRIPE_WEBHOOK_MAX_BYTES), signature: z.string().max(2_000) }),
    success: { status: 200, data: z.object({ received: z.literal(true), applied: z.boolean() }), shape: 'envelope' },
    errors: ['parameter_missing', 'parameter_invalid', 'resource_not_found'],
  },
});
