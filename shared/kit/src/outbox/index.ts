export { withOutbox, type Emit, type EventInput, type EventScope } from './with-outbox';
export { DEFAULT_RELAY_LEASE_MS, startOutboxRelay, type OutboxRelay, type OutboxRelayOptions } from './relay';
export { AlreadyProcessed, consumeOnce, consumeOnceEmitting, recordProcessed, SYSTEM_ACTOR, systemEventScope } from './consume-once';
export { consumeBatchesOnce, microBatches, MAX_MICRO_BATCH, type MicroBatches, type MicroBatchStats } from './micro-batches';
export { idempotentRequestModel, outboxModel, processedModel, IDEMPOTENT_REQUEST_RETENTION_SECONDS, OUTBOX_RETENTION_SECONDS, PROCESSED_RETENTION_SECONDS, type OutboxRow, type ProcessedEventRow } from './models';
export { forwardedIdempotencyKey, IDEMPOTENCY_FINGERPRINT_HEADER, IDEMPOTENCY_KEY_HEADER, resealIdempotentRecords, runOncePerKey } from './idempotent-requests';
