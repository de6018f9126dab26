import { on, type Logger, type Subscription } from '@helpdesk/kit';
import type { CustomerRefs } from '../customer-refs/rules';

/**
 * The customers ticketing keeps a projection of (search, expand[]=customer and the customer check of
 * a ticket's create or move read it, docs/adr/0055), and the deletions that unlink a customer's
 * tickets. Snapshots are applied by `rev` and unlinking finds only tickets still linked, so a
 * redelivered event changes nothing twice.
 */
export const customerEventConsumers = (customerRefs: Pick<CustomerRefs, 'apply' | 'unlinkDeleted'>, logger: Logger): Subscription[] => [
  on('customer.created', (e) => customerRefs.apply(e, e.data.customer)),
  on('customer.updated', (e) => customerRefs.apply(e, e.data.customer)),
  on('customer.deleted', async (e) => {
    const unlinked = await customerRefs.unlinkDeleted(e, e.data.customer);
    logger.info({ customerId: e.data.customerId, unlinked, requestId: e.requestId }, 'deleted customer unlinked from its tickets');
  }),
];
