import { startService, type RunningService, type ServiceOptions } from '@helpdesk/kit';
import { localBillingProvider } from './billing/local-provider';
import type { WorkspaceRules } from './rules';
import { workspaceService, DEFAULT_BILLING_PORTAL_URL, DEFAULT_INVITE_ACCEPT_URL } from './service';

export { workspaceService, DEFAULT_BILLING_PORTAL_URL, DEFAULT_INVITE_ACCEPT_URL } from './service';
export type { WorkspaceRules } from './rules';

export interface WorkspaceOptions extends ServiceOptions {
  /** The page invitation links open; the token is added as `?token=…`. */
  inviteAcceptUrl?: string;
  /** Where the local billing portal's pages are served (the gateway's `/billing/portal`); `/{teamId}/{session}` is added. */
  billingPortalUrl?: string;
}
export type RunningWorkspace = RunningService<WorkspaceRules>;

/** Connects (database `workspace` by default), builds indexes, starts the outbox relay, and listens. */
export function startWorkspace(opts: WorkspaceOptions): Promise<RunningWorkspace> {
  const portalBaseUrl = opts.billingPortalUrl ?? DEFAULT_BILLING_PORTAL_URL;
  return startService(
    workspaceService({
      inviteAcceptUrl: opts.inviteAcceptUrl ?? DEFAULT_INVITE_ACCEPT_URL,
      billingProvider: (models) => localBillingProvider({ sessions: models.portalSessions, portalBaseUrl }),
    }),
    opts,
  );
}
