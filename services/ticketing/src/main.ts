/** Standalone process: `PORT`, `MONGO_URL` (required here), `AMQP_URL`, `INTERNAL_TOKEN_SECRET`, `LOG_LEVEL`. */
import { z } from 'zod';
import { createLogger, InternalTokens, loadConfig, onShutdown, serviceEnvSchema } from '@helpdesk/kit';
import { createBus } from './outbox';
import { startTicketing } from './index';

const configSchema = serviceEnvSchema.extend({ MONGO_URL: z.string().url() });

async function main(): Promise<void> {
  const config = loadConfig(configSchema);
  const logger = createLogger('ticketing', config.LOG_LEVEL);
  const bus = createBus({ amqpUrl: config.AMQP_URL, logger });
  const running = await startTicketing({
    mongoUrl: config.MONGO_URL,
    bus,
    tokens: new InternalTokens(config.INTERNAL_TOKEN_SECRET),
    logger,
    port: config.PORT,
    host: '0.0.0.0',
  });
  // Closed in reverse order: the service (HTTP, relay, database) first, then the bus.
  onShutdown(logger, [
    { name: 'bus', close: () => bus.close() },
    { name: 'ticketing', close: () => running.stop() },
  ]);
  logger.info({ url: running.url }, 'ticketing listening');
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
