import { INBOUND_EMAIL, INBOUND_EMAIL_INTERNAL } from '@helpdesk/contracts';
import { handlersFor } from '@helpdesk/kit';
import type { TicketingRules } from '../rules';

/** `/teams/{teamId}/inbound-email…`, and the reply threading notifications asks for (docs/adr/0041). */
export const inboundEmailHandlers = ({ inboundEmail }: TicketingRules) => ({
  ...handlersFor(INBOUND_EMAIL)({
    getInboundEmail: ({ ctx }) => inboundEmail.settings(ctx),
    rotateInboundEmailSecret: ({ ctx }) => inboundEmail.rotateSecret(ctx),
    revokeInboundEmailSecret: ({ ctx }) => inboundEmail.revokeSecret(ctx),
  }),
  ...handlersFor(INBOUND_EMAIL_INTERNAL)({
    getEmailReplyThread: ({ ctx, params, query }) => inboundEmail.replyThread(ctx, params.ticketId, query.messageId),
  }),
});
