import { TICKETING } from '@helpdesk/contracts';
import { handlersFor } from '@helpdesk/kit';
import type { TicketingRules } from '../rules';

/** `/teams/{teamId}/sla/rules…`. */
export const slaHandlers = ({ sla }: TicketingRules) =>
  handlersFor(TICKETING)({
    listSlaRules: ({ ctx }) => sla.list(ctx),
    createSlaRule: ({ ctx, body }) => sla.create(ctx, body),
    getSlaRule: ({ ctx, params }) => sla.get(ctx, params.ruleId),
    updateSlaRule: ({ ctx, params, body }) => sla.update(ctx, params.ruleId, body),
    deleteSlaRule: ({ ctx, params }) => sla.remove(ctx, params.ruleId),
    reorderSlaRules: ({ ctx, body }) => sla.reorder(ctx, body),
  });
