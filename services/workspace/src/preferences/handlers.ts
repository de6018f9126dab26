import { WORKSPACE } from '@helpdesk/contracts';
import { handlersFor } from '@helpdesk/kit';
import type { WorkspaceRules } from '../rules';

/** `/teams/{teamId}/preferences`: the spec's view of one feature flag, `bossBattlesEnabled` (needs `manage_settings`). */
export const teamPreferenceHandlers = ({ featureFlags }: WorkspaceRules) =>
  handlersFor(WORKSPACE)({
    getTeamPreferences: async ({ ctx }) => ({ bossBattlesEnabled: (await featureFlags.get(ctx)).bossBattlesEnabled }),
    updateTeamPreferences: async ({ ctx, body }) => ({ bossBattlesEnabled: (await featureFlags.update(ctx, body)).bossBattlesEnabled }),
  });
