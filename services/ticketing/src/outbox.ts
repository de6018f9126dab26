/**
 * The one place this service gets its unit of work (change + events in one MongoDB transaction),
 * its outbox relay and its bus from: kit's `outbox/` and `bus/`.
 */
export { withOutbox, startOutboxRelay, createBus, type OutboxRelay, type Emit, type OutboxScope, type EventBus } from '@helpdesk/kit';
