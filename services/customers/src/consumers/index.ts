import { customFieldSubscriptions, on, type ServiceDeps, type Subscription } from '@helpdesk/kit';
import type { CustomersModels } from '../collections';
import type { CustomersRules } from '../rules';
import { ticketConsumers } from './tickets';

/**
 * Everything the customers service reacts to, in one list (queue `helpdesk.customers`); a handler
 * that throws is retried by the bus.
 */
export const consumers = ({ customers, customFields }: CustomersRules, { conn }: ServiceDeps<CustomersModels>): Subscription[] => {
  const tickets = ticketConsumers(conn, customers);
  return [
    on('ticket.created', tickets.created), // ticketCount +1; the initial customer messages' sentiment
    on('ticket.updated', tickets.updated), // customerId moved: -1 / +1
    on('ticket.deleted', tickets.deleted), // ticketCount -1
    on('ticket.message_added', tickets.messageAdded), // a customer message's sentiment
    // The team's customer custom field definitions (docs/adr/0022).
    ...customFieldSubscriptions(customFields),
  ];
};
