import type mongoose from 'mongoose';
import { TICKETING } from '@helpdesk/contracts';
import { handlersFor } from '@helpdesk/kit';
import { addMessage, type AddMessageDeps } from './add';
import { listMessages } from './list';

/** `/teams/{teamId}/tickets/{ticketId}/messages`. */
export const messageHandlers = (deps: AddMessageDeps & { conn: mongoose.Connection }) =>
  handlersFor(TICKETING)({
    listMessages: ({ ctx, params, query }) => listMessages(deps, ctx, params.ticketId, query),
    addMessage: ({ ctx, params, body }) => addMessage(deps, ctx, params.ticketId, body),
  });
