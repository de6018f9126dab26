import { WORKSPACE } from '@helpdesk/contracts';
import { handlersFor } from '@helpdesk/kit';
import type { WorkspaceRules } from '../rules';

/** `/teams/{teamId}/invites…` (acceptance is the gateway's `POST /invites/accept`, which asks ../internal). */
export const inviteHandlers = ({ invites }: WorkspaceRules) =>
  handlersFor(WORKSPACE)({
    listInvites: ({ ctx }) => invites.list(ctx),
    createInvite: ({ ctx, body }) => invites.create(ctx, body),
    revokeInvite: ({ ctx, params }) => invites.revoke(ctx, params.inviteId),
  });
