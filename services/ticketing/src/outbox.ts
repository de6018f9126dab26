/**
 * The one place this service gets its unit of work (change + events in one MongoDB transaction),
 * its outbox relay and its bus from.
 *
 * TEMPORARY: kit's `bus/` and `outbox/` had not landed when this service was written, so the same
 * API (`withOutbox`, `startOutboxRelay`, `createBus`) is implemented locally in `./outbox-local`.
 * When kit exports them, switching is the one-line change below:
 *   export { withOutbox, startOutboxRelay, createBus, type EventBus, type OutboxRelay, type Emit } from '@helpdesk/kit';
 */
export { withOutbox, startOutboxRelay, createBus, type EventBus, type OutboxRelay, type Emit, type OutboxScope } from './outbox-local';
