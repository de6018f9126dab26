import { WORKSPACE } from '@helpdesk/contracts';
import { handlersFor } from '@helpdesk/kit';
import type { WorkspaceRules } from '../rules';

/** `/teams/{teamId}/members…`: per team, whichever partition the key is in. */
export const memberHandlers = ({ members }: WorkspaceRules) =>
  handlersFor(WORKSPACE)({
    listMembers: ({ ctx, query }) => members.list(ctx, query),
    getMember: ({ ctx, params }) => members.get(ctx, params.memberId),
    updateMember: ({ ctx, params, body }) => members.changeRole(ctx, params.memberId, body.role),
    deleteMember: ({ ctx, params }) => members.remove(ctx, params.memberId),
  });
