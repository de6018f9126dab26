export { withOutbox, type Emit, type EventInput, type EventScope } from './with-outbox';
export { startOutboxRelay, type OutboxRelay, type OutboxRelayOptions } from './relay';
export { consumeOnce, consumeOnceEmitting, SYSTEM_ACTOR, systemEventScope } from './consume-once';
export { outboxModel, processedModel, OUTBOX_RETENTION_SECONDS, PROCESSED_RETENTION_SECONDS, type OutboxRow, type ProcessedEventRow } from './models';
