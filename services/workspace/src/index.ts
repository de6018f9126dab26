import { startService, type RunningService, type ServiceOptions } from '@helpdesk/kit';
import type { WorkspaceRules } from './rules';
import { workspaceService, DEFAULT_INVITE_ACCEPT_URL } from './service';

export { workspaceService, DEFAULT_INVITE_ACCEPT_URL } from './service';
export type { WorkspaceRules } from './rules';

export interface WorkspaceOptions extends ServiceOptions {
  /** The page invitation links open; the token is added as `?token=…`. */
  inviteAcceptUrl?: string;
}
export type RunningWorkspace = RunningService<WorkspaceRules>;

/** Connects (database `workspace` by default), builds indexes, starts the outbox relay, and listens. */
export function startWorkspace(opts: WorkspaceOptions): Promise<RunningWorkspace> {
  return startService(workspaceService({ inviteAcceptUrl: opts.inviteAcceptUrl ?? DEFAULT_INVITE_ACCEPT_URL }), opts);
}
