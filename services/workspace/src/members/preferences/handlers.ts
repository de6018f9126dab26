import { WORKSPACE } from '@helpdesk/contracts';
import { handlersFor } from '@helpdesk/kit';
import type { WorkspaceRules } from '../../rules';

/** `/teams/{teamId}/members/{memberId}/preferences`: `manage_members`, as the spec says. */
export const memberPreferenceHandlers = ({ members }: WorkspaceRules) =>
  handlersFor(WORKSPACE)({
    getMemberPreferences: ({ ctx, params }) => members.getPreferences(ctx, params.memberId),
    updateMemberPreferences: ({ ctx, params, body }) => members.updatePreferences(ctx, params.memberId, body),
  });
