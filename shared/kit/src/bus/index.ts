import { AmqpBus, type BrokerAccessRefused } from './amqp-bus';
import { MemoryBus } from './memory-bus';
import type { BusLogger, EventBus } from './types';

export * from './types';
export { MemoryBus } from './memory-bus';
export { AmqpBus, ATTEMPT_HEADER, BrokerAccessRefused, isAccessRefused, redactedUrl, type AmqpBusOptions } from './amqp-bus';

/**
 * RabbitMQ when `amqpUrl` is set (AMQP_URL), the in-process bus otherwise. `onFatal`: the broker
 * refused the credentials or permissions (RabbitMQ only; the bus has logged it and stopped).
 */
export function createBus(opts: { amqpUrl?: string; logger: BusLogger; exchange?: string; queuePrefix?: string; onFatal?: (err: BrokerAccessRefused) => void }): EventBus {
  if (opts.amqpUrl) return new AmqpBus({ url: opts.amqpUrl, logger: opts.logger, exchange: opts.exchange, queuePrefix: opts.queuePrefix, onFatal: opts.onFatal });
  return new MemoryBus(opts.logger);
}
export { AGGREGATE_OWNERS, BUS_SERVICES, PUBLISHER_HEADER, amqpUser, eventOwner, serviceOfUser, ownershipRefusal } from './ownership';
export { operatorName, runDeadLetterCommand, type DeadLetterCommand, type DeadLetterIo } from './dead-letter-cli';
