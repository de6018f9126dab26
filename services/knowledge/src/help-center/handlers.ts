import { KNOWLEDGE, KNOWLEDGE_INTERNAL } from '@helpdesk/contracts';
import { handlersFor } from '@helpdesk/kit';
import type { KnowledgeRules } from '../rules';

/** `/teams/{teamId}/help-center`: the partition's switch. */
export const helpCenterHandlers = ({ helpCenter }: KnowledgeRules) =>
  handlersFor(KNOWLEDGE)({
    getHelpCenter: ({ ctx }) => helpCenter.get(ctx),
    updateHelpCenter: ({ ctx, body }) => helpCenter.update(ctx, body),
  });

/** The pages the gateway serves at `/help/{teamSlug}` (gateway/src/help-center.ts). */
export const internalHelpCenterHandlers = ({ helpCenter }: KnowledgeRules) =>
  handlersFor(KNOWLEDGE_INTERNAL)({
    renderHelpCenterPage: ({ ctx, query }) => helpCenter.page(ctx, query),
  });
