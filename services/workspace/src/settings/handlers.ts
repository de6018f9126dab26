import { WORKSPACE } from '@helpdesk/contracts';
import { handlersFor } from '@helpdesk/kit';
import type { WorkspaceRules } from '../rules';

/** `/teams/{teamId}/settings`: any secret key reads, `manage_settings` writes. */
export const settingsHandlers = ({ settings }: WorkspaceRules) =>
  handlersFor(WORKSPACE)({
    getSettings: ({ ctx }) => settings.get(ctx),
    updateSettings: ({ ctx, body }) => settings.update(ctx, body),
  });
