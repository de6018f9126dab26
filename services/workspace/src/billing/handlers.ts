import { WORKSPACE, WORKSPACE_INTERNAL } from '@helpdesk/contracts';
import { handlersFor } from '@helpdesk/kit';
import type { WorkspaceRules } from '../rules';

/** `/teams/{teamId}/billing/…`: `manage_billing` (docs/adr/0024). */
export const billingHandlers = ({ billing }: WorkspaceRules) =>
  handlersFor(WORKSPACE)({
    getSubscription: ({ ctx }) => billing.get(ctx),
    createBillingPortal: ({ ctx, body }) => billing.openPortal(ctx, body.returnUrl),
  });

/** `/internal/billing/portal`: the gateway's local portal page asks (gateway/src/billing-pages.ts). */
export const billingInternalHandlers = ({ billing }: WorkspaceRules) =>
  handlersFor(WORKSPACE_INTERNAL)({
    getBillingPortalPage: ({ ctx, query }) => billing.page(ctx, query.session),
    actOnBillingPortal: ({ ctx, body }) => billing.act(ctx, body),
    receiveStripeWebhook: ({ body }) => billing.stripeWebhook(body.payload, body.signature),
  });
