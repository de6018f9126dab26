import { CUSTOMERS_INTERNAL } from '@helpdesk/contracts';
import { customFieldRules, internalClient, type ServiceDeps } from '@helpdesk/kit';
import { customerRefsRules } from './customer-refs/rules';
import type { TicketingModels } from './models';
import { messageRules } from './tickets/messages/rules';
import { ticketRules } from './tickets/rules';

export interface TicketingConfig {
  /** The customers service's base URL (CUSTOMERS_URL): asked about a ticket's customer when it is created or moved. */
  customersUrl: string;
}

/** Every resource's rules, wired once; handlers, consumers and workers share them. */
export function ticketingRules({ conn, models }: ServiceDeps<TicketingModels>, config: TicketingConfig) {
  const customerRefs = customerRefsRules({ conn, models });
  const customFields = customFieldRules({ definitions: models.customFieldDefs, records: models.tickets, contentType: 'ticket' });
  const tickets = ticketRules({ conn, models, customerRefs, customFields });
  const messages = messageRules({ conn, models, tickets });
  const customers = internalClient(CUSTOMERS_INTERNAL, config.customersUrl, { service: 'customers' });
  return { customerRefs, customFields, tickets, messages, customers };
}
export type TicketingRules = ReturnType<typeof ticketingRules>;
