import { TICKETING_AUTOMATIONS } from '@helpdesk/contracts';
import { handlersFor } from '@helpdesk/kit';
import type { TicketingRules } from '../rules';

/** `/teams/{teamId}/ai…` (docs/adr/0029). */
export const aiHandlers = ({ ai }: TicketingRules) =>
  handlersFor(TICKETING_AUTOMATIONS)({
    runAiAction: ({ ctx, body }) => ai.run(ctx, body),
    getAiSettings: ({ ctx }) => ai.settings(ctx),
    updateAiSettings: ({ ctx, body }) => ai.updateSettings(ctx, body),
  });
