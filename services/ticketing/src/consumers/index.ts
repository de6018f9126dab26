import { customFieldSubscriptions, on, type Logger, type Subscription } from '@helpdesk/kit';
import type { TicketingRules } from '../rules';

/**
 * Everything ticketing reacts to, in one list: the customers it keeps a projection of (search and
 * expand[]=customer read it) and the deletions that unlink a customer's tickets. Each handler is
 * idempotent by itself (snapshots are applied by `rev`; unlinking finds only tickets still linked),
 * so a redelivered event changes nothing twice.
 */
export const consumers = ({ customerRefs, customFields }: TicketingRules, { logger }: { logger: Logger }): Subscription[] => [
  on('customer.created', (e) => customerRefs.apply(e, e.data.customer)),
  on('customer.updated', (e) => customerRefs.apply(e, e.data.customer)),
  on('customer.deleted', async (e) => {
    const unlinked = await customerRefs.unlinkDeleted(e, e.data.customer);
    logger.info({ customerId: e.data.customerId, unlinked, requestId: e.requestId }, 'deleted customer unlinked from its tickets');
  }),
  // The team's ticket custom field definitions (docs/adr/0022).
  ...customFieldSubscriptions(customFields),
];
