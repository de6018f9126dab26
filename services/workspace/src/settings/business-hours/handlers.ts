import { WORKSPACE } from '@helpdesk/contracts';
import { handlersFor } from '@helpdesk/kit';
import type { WorkspaceRules } from '../../rules';

/** `/teams/{teamId}/settings/business-hours` */
export const businessHoursHandlers = ({ businessHours }: WorkspaceRules) =>
  handlersFor(WORKSPACE)({
    getBusinessHours: ({ ctx }) => businessHours.get(ctx),
    updateBusinessHours: ({ ctx, body }) => businessHours.update(ctx, body),
  });
