import { TICKETING_AUTOMATIONS } from '@helpdesk/contracts';
import { handlersFor } from '@helpdesk/kit';
import { runAiAction, type RunAiDeps } from './run';
import { getAiSettings, updateAiSettings } from './settings';

/** `/teams/{teamId}/ai…` (docs/adr/0029). */
export const aiHandlers = (deps: RunAiDeps) =>
  handlersFor(TICKETING_AUTOMATIONS)({
    runAiAction: ({ ctx, body }) => runAiAction(deps, ctx, body),
    getAiSettings: ({ ctx }) => getAiSettings(deps, ctx),
    updateAiSettings: ({ ctx, body }) => updateAiSettings(deps, ctx, body),
  });
