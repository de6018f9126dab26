import type mongoose from 'mongoose';
import type { AddMessageInput, CreateTicketInput, GetTicketQuery, MessageSnapshot, MessageView, TicketView } from '@helpdesk/contracts';
import type { Emit, RequestContext, Scope } from '@helpdesk/kit';
import type { CustomerCalls } from '../customer-refs/rules';
import { applyTicketChanges, changeTicketIn, type ChangeTicketDeps, type TicketChanges } from './change';
import { createTicket, type CreateTicketDeps, type CreateTicketOptions } from './create';
import { findTicketOr404 } from './find';
import { getTicket } from './get';
import { addMessage, addMessageIn, type AddMessageDeps, type MessageToAdd } from './messages/add';
import type { TicketDoc } from './model';

/**
 * What the other resources of ticketing reach tickets through (automations, the widget, inbound
 * email, the SLA breach scan): each names the few operations it uses
 * (`Pick<TicketsPort, …>`), and the port binds them to the tickets' own dependencies.
 */
export interface TicketsPort {
  /** A ticket or a 404; `forWrite` loads the whole document (merge). */
  findOr404(scope: Scope, id: string, session?: mongoose.ClientSession, forWrite?: boolean): Promise<TicketDoc>;
  get(ctx: RequestContext, id: string, q?: GetTicketQuery): Promise<TicketView>;
  create(ctx: RequestContext, input: CreateTicketInput, customers: CustomerCalls, opts?: CreateTicketOptions): Promise<TicketView>;
  /** A change inside the caller's transaction (the SLA scan): see `changeTicketIn`. */
  changeIn(session: mongoose.ClientSession, emit: Emit, scope: Scope, id: string, changes: TicketChanges): ReturnType<typeof changeTicketIn>;
  /** A change inside the caller's transaction that skips gone and merged tickets (automations): see `applyTicketChanges`. */
  applyChanges(session: mongoose.ClientSession, emit: Emit, scope: Scope, id: string, changes: TicketChanges): ReturnType<typeof applyTicketChanges>;
  addMessageIn(session: mongoose.ClientSession, emit: Emit, scope: Scope, ticketId: string, message: MessageToAdd): Promise<{ message: MessageSnapshot; eventIds: string[] }>;
  /** A message in its own transaction, as `POST /tickets/{id}/messages` adds it (the widget). */
  addMessage(ctx: RequestContext, ticketId: string, input: AddMessageInput): Promise<MessageView>;
}

export type TicketsPortDeps = CreateTicketDeps & ChangeTicketDeps & AddMessageDeps;

export const ticketsPort = (deps: TicketsPortDeps): TicketsPort => ({
  findOr404: (scope, id, session, forWrite) => findTicketOr404(deps, scope, id, session, forWrite),
  get: (ctx, id, q) => getTicket(deps, ctx, id, q),
  create: (ctx, input, customers, opts) => createTicket(deps, ctx, input, customers, opts),
  changeIn: (session, emit, scope, id, changes) => changeTicketIn(deps, session, emit, scope, id, changes),
  applyChanges: (session, emit, scope, id, changes) => applyTicketChanges(deps, session, emit, scope, id, changes),
  addMessageIn: (session, emit, scope, ticketId, message) => addMessageIn(deps, session, emit, scope, ticketId, message),
  addMessage: (ctx, ticketId, input) => addMessage(deps, ctx, ticketId, input),
});
