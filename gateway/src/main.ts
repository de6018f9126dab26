// The gateway as its own process: `tsx gateway/src/main.ts` (env: see gatewayEnvSchema).
import { createLogger, InternalTokens, loadConfig, onShutdown } from '@helpdesk/kit';
import { gatewayEnvSchema } from './config';
import { startGateway } from './index';

async function main(): Promise<void> {
  const env = loadConfig(gatewayEnvSchema);
  const logger = createLogger('gateway', env.LOG_LEVEL);
  const gateway = await startGateway({
    port: env.PORT,
    host: env.HOST,
    mongoUrl: env.MONGO_URL,
    dbName: env.MONGO_DB,
    redisUrl: env.REDIS_URL,
    redisKeyPrefix: env.REDIS_KEY_PREFIX,
    tokens: new InternalTokens(env.INTERNAL_TOKEN_SECRET),
    streamTokenSecret: env.INTERNAL_TOKEN_SECRET,
    services: env.SERVICE_URLS,
    logger,
    keyCacheTtlMs: env.KEY_CACHE_TTL_MS,
    rateLimits: {
      secretPerMinute: env.RATE_LIMIT_SECRET_PER_MINUTE,
      publishablePerMinute: env.RATE_LIMIT_PUBLISHABLE_PER_MINUTE,
    },
  });
  onShutdown(logger, [{ name: 'gateway', close: () => gateway.stop() }]);
  logger.info({ url: gateway.url, services: Object.keys(env.SERVICE_URLS), redis: Boolean(env.REDIS_URL) }, 'gateway ready');
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
