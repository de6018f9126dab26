import type { EventEnvelope, EventData } from '@helpdesk/contracts';
import type { Logger } from '@helpdesk/kit';
import type mongoose from 'mongoose';
import { ticketingDeps } from '../app';
import type { EventBus } from '../outbox';

export interface ConsumerDeps {
  conn: mongoose.Connection;
  logger: Logger;
}

/**
 * Everything ticketing reacts to, in one list: the customers it keeps a projection of (search and
 * expand[]=customer read it) and the deletions that unlink a customer's tickets. Each handler is
 * idempotent by itself (snapshots are applied by `rev`; unlinking finds only tickets still linked),
 * so a redelivered event changes nothing twice.
 */
export async function subscribeConsumers(bus: EventBus, deps: ConsumerDeps): Promise<void> {
  const { customerRefs } = ticketingDeps(deps.conn);
  const handlers: Record<string, (e: EventEnvelope) => Promise<void>> = {
    'customer.created': (e) => customerRefs.apply(e, (e.data as EventData<'customer.created'>).customer),
    'customer.updated': (e) => customerRefs.apply(e, (e.data as EventData<'customer.updated'>).customer),
    'customer.deleted': async (e) => {
      const n = await customerRefs.unlinkDeleted(e, (e.data as EventData<'customer.deleted'>).customer);
      deps.logger.info({ customerId: (e.data as EventData<'customer.deleted'>).customerId, unlinked: n, requestId: e.requestId }, 'deleted customer unlinked from its tickets');
    },
  };
  await bus.subscribe('ticketing', Object.keys(handlers), (e) => handlers[e.type](e));
}
