import { WORKSPACE } from '@helpdesk/contracts';
import { handlersFor } from '@helpdesk/kit';
import type { WorkspaceRules } from '../../rules';

/** `/teams/{teamId}/settings/feature-flags` */
export const featureFlagHandlers = ({ featureFlags }: WorkspaceRules) =>
  handlersFor(WORKSPACE)({
    getFeatureFlags: ({ ctx }) => featureFlags.get(ctx),
    updateFeatureFlags: ({ ctx, body }) => featureFlags.update(ctx, body),
  });
