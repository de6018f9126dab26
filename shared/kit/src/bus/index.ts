import { AmqpBus } from './amqp-bus';
import { MemoryBus } from './memory-bus';
import type { BusLogger, EventBus } from './types';

export * from './types';
export { MemoryBus } from './memory-bus';
export { AmqpBus, ATTEMPT_HEADER, type AmqpBusOptions } from './amqp-bus';

/** RabbitMQ when `amqpUrl` is set (AMQP_URL), the in-process bus otherwise. */
export function createBus(opts: { amqpUrl?: string; logger: BusLogger; exchange?: string; queuePrefix?: string }): EventBus {
  if (opts.amqpUrl) return new AmqpBus({ url: opts.amqpUrl, logger: opts.logger, exchange: opts.exchange, queuePrefix: opts.queuePrefix });
  return new MemoryBus(opts.logger);
}
export { runDeadLetterCommand, type DeadLetterCommand, type DeadLetterIo } from './dead-letter-cli';
