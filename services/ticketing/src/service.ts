import { TICKETING } from '@helpdesk/contracts';
import { defineService } from '@helpdesk/kit';
import { consumers } from './consumers';
import { ticketingModels } from './models';
import { ticketingRules, type TicketingConfig } from './rules';
import { ticketHandlers } from './tickets/handlers';
import { messageHandlers } from './tickets/messages/handlers';

/** The ticketing service: tickets and their messages, and its projection of customers. */
export const ticketingService = (config: TicketingConfig) =>
  defineService({
    name: 'ticketing',
    operations: TICKETING,
    models: ticketingModels,
    rules: (deps) => ticketingRules(deps, config),
    handlers: (rules) => ({ ...ticketHandlers(rules), ...messageHandlers(rules) }),
    consumers,
  });
