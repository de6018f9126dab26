import { WORKSPACE } from '@helpdesk/contracts';
import { handlersFor } from '@helpdesk/kit';
import type { WorkspaceRules } from '../../rules';

/** `/teams/{teamId}/settings/statuses…` */
export const statusHandlers = ({ statuses }: WorkspaceRules) =>
  handlersFor(WORKSPACE)({
    listTicketStatuses: ({ ctx }) => statuses.list(ctx),
    updateTicketStatus: ({ ctx, params, body }) => statuses.update(ctx, params.statusKey, body),
  });
