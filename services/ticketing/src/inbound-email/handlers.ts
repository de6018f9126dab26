import type mongoose from 'mongoose';
import { INBOUND_EMAIL, INBOUND_EMAIL_INTERNAL } from '@helpdesk/contracts';
import { handlersFor } from '@helpdesk/kit';
import type { TicketingModels } from '../collections';
import type { MailIntake } from './intake';
import { replyThread } from './reply-thread';
import { getInboundEmail, revokeInboundSecret, rotateInboundSecret } from './secret';

/** `/teams/{teamId}/inbound-email…`, and the reply threading notifications asks for (docs/adr/0041). */
export const inboundEmailHandlers = (deps: { conn: mongoose.Connection; models: TicketingModels; inboundEmail: Pick<MailIntake, 'config'> }) => {
  const { domain } = deps.inboundEmail.config;
  return {
    ...handlersFor(INBOUND_EMAIL)({
      getInboundEmail: ({ ctx }) => getInboundEmail(deps, domain, ctx),
      rotateInboundEmailSecret: ({ ctx }) => rotateInboundSecret(deps, ctx),
      revokeInboundEmailSecret: ({ ctx }) => revokeInboundSecret(deps, ctx),
    }),
    ...handlersFor(INBOUND_EMAIL_INTERNAL)({
      getEmailReplyThread: ({ ctx, params, query }) => replyThread(deps, domain, ctx, params.ticketId, query.messageId),
    }),
  };
};
