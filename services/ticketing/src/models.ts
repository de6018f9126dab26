import { customFieldDefModel } from '@helpdesk/kit';
import type mongoose from 'mongoose';
import { customerRefModel } from './customer-refs/model';
import { messageModel } from './tickets/messages/model';
import { ticketModel } from './tickets/model';

/** Every model of the service on its connection (kit builds their indexes at start-up). */
export const ticketingModels = (conn: mongoose.Connection) => ({
  tickets: ticketModel(conn),
  messages: messageModel(conn),
  customerRefs: customerRefModel(conn),
  customFieldDefs: customFieldDefModel(conn),
});
export type TicketingModels = ReturnType<typeof ticketingModels>;
