import type mongoose from 'mongoose';
import type { Emit, Scope } from '@helpdesk/kit';
import type { TicketChanges } from '../tickets/change';
import type { TicketsPort } from '../tickets/port';

export type { TicketChanges };

/**
 * How automations change a ticket inside the consumer's transaction, with the ticket's normal rules
 * and events (PATCH's and POST /messages' own). Each answers the ids of the events it emitted: the
 * loop guard records their depth.
 */
export interface TicketWriter {
  applyChanges(session: mongoose.ClientSession, emit: Emit, scope: Scope, ticketId: string, changes: TicketChanges): Promise<string[]>;
  addMessage(
    session: mongoose.ClientSession,
    emit: Emit,
    scope: Scope,
    ticketId: string,
    message: { content: string; isInternal: boolean; senderName: string },
  ): Promise<string[]>;
}

/** The writer on the tickets' port (docs/adr/0025). */
export const ticketWriter = (tickets: Pick<TicketsPort, 'applyChanges' | 'addMessageIn'>): TicketWriter => ({
  async applyChanges(session, emit, scope, ticketId, changes) {
    if (!Object.keys(changes).length) return [];
    return (await tickets.applyChanges(session, emit, scope, ticketId, changes)).eventIds;
  },
  async addMessage(session, emit, scope, ticketId, message) {
    // Sender `system`: an automation's reply is not an agent's first response.
    return (await tickets.addMessageIn(session, emit, scope, ticketId, { ...message, sender: 'system' })).eventIds;
  },
});
