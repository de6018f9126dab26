/**
 * The one place this service gets its unit of work (change + events in one MongoDB transaction),
 * its outbox relay and its bus from: kit's `outbox/` and `bus/`. They are imported from their
 * folders until kit's index re-exports them; then this becomes `from '@helpdesk/kit'`.
 */
export { withOutbox, startOutboxRelay, type OutboxRelay, type Emit, type OutboxScope } from '@helpdesk/kit/src/outbox';
export { createBus, type EventBus } from '@helpdesk/kit/src/bus';
