import { ConfigError, createLogger, loadConfig, onShutdown } from '@helpdesk/kit';
import { localEnvSchema } from './config';
import { bootPlatform } from './platform';
import { ensureDevCredentials } from './credentials';

/** `npm start`: the whole platform in one process on embedded defaults. */
async function main(): Promise<void> {
  const env = loadConfig(localEnvSchema);
  const logger = createLogger('local', env.LOG_LEVEL);
  const platform = await bootPlatform({
    port: env.PORT,
    host: env.HOST,
    dataDir: env.DATA_DIR,
    embeddedMongoPort: env.EMBEDDED_MONGO_PORT,
    mongoUrl: env.MONGO_URL,
    amqpUrl: env.AMQP_URL,
    redisUrl: env.REDIS_URL,
    internalTokenSecret: env.INTERNAL_TOKEN_SECRET,
    logger,
    rateLimits: { secretPerMinute: env.RATE_LIMIT_SECRET_PER_MINUTE, publishablePerMinute: env.RATE_LIMIT_PUBLISHABLE_PER_MINUTE },
    webhooks: { allowLoopback: env.WEBHOOKS_ALLOW_LOOPBACK, timeoutMs: env.WEBHOOKS_TIMEOUT_MS },
  });
  onShutdown(logger, [{ name: 'platform', close: () => platform.stop() }]);
  const { credentials, created, file } = await ensureDevCredentials(platform.gateway.admin, env.DATA_DIR, {
    baseUrl: platform.baseUrl,
    mongoUrl: platform.mongoUrl,
  });
  const lines = [
    '',
    `Helpdesk platform${created ? ' (first start: development team created)' : ''}`,
    `  team        ${credentials.teamId} (${credentials.teamName})`,
    ...Object.entries(credentials.keys).map(([kind, key]) => `  ${kind.padEnd(11)} ${key}`),
    `  MongoDB     ${platform.mongoUrl}${platform.embeddedMongo ? ` (embedded, journal in ${env.DATA_DIR}/mongo)` : ''}`,
    `  bus         ${env.AMQP_URL ? 'RabbitMQ' : 'in-process'}; rate limits and idempotency ${env.REDIS_URL ? 'in Redis' : 'in-process'}`,
    `  credentials ${file}`,
    `Ready: ${platform.baseUrl}`,
    '',
  ];
  process.stdout.write(lines.join('\n'));
}

main().catch((err) => {
  if (err instanceof ConfigError) console.error(err.message);
  else console.error('start-up failed:', err);
  process.exit(1);
});
