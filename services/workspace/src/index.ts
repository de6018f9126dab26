import { startService, type RunningService, type ServiceOptions } from '@helpdesk/kit';
import { localBillingProvider } from './billing/local-provider';
import { stripeBillingProvider, stripeClient, type StripeSettings } from './billing/stripe-provider';
import type { WorkspaceRules } from './rules';
import { workspaceService, DEFAULT_BILLING_PORTAL_URL, DEFAULT_INVITE_ACCEPT_URL, DEFAULT_SIGN_IN_URL } from './service';

export { workspaceService, DEFAULT_BILLING_PORTAL_URL, DEFAULT_INVITE_ACCEPT_URL, DEFAULT_SIGN_IN_URL } from './service';
export type { WorkspaceRules } from './rules';

export interface WorkspaceOptions extends ServiceOptions {
  /** The page invitation links open; the token is added as `?token=…`. */
  inviteAcceptUrl?: string;
  /** The console's sign-in page sign-in links open; the token is added as `?token=…` (docs/adr/0068). */
  signInUrl?: string;
  /** Where the local billing portal's pages are served (the gateway's `/billing/portal`); `/{teamId}/{session}` is added. */
  billingPortalUrl?: string;
  /** Stripe instead of the local billing provider (docs/adr/0024). */
  stripe?: StripeSettings;
  /** How many days the audit log keeps an entry (AUDIT_RETENTION_DAYS; default 365). */
  auditRetentionDays?: number;
}
export type RunningWorkspace = RunningService<WorkspaceRules>;

/** Connects (database `workspace` by default), builds indexes, starts the outbox relay, and listens. */
export function startWorkspace(opts: WorkspaceOptions): Promise<RunningWorkspace> {
  const portalBaseUrl = opts.billingPortalUrl ?? DEFAULT_BILLING_PORTAL_URL;
  const stripe = opts.stripe ? { client: stripeClient(opts.stripe), webhookSecret: opts.stripe.webhookSecret } : undefined;
  return startService(
    workspaceService({
      inviteAcceptUrl: opts.inviteAcceptUrl ?? DEFAULT_INVITE_ACCEPT_URL,
      signInUrl: opts.signInUrl ?? DEFAULT_SIGN_IN_URL,
      billingProvider: (models) =>
        stripe ? stripeBillingProvider(stripe.client) : localBillingProvider({ sessions: models.portalSessions, portalBaseUrl }),
      stripe,
    }, opts.auditRetentionDays),
    opts,
  );
}
