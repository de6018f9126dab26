// The gateway as its own process: `node --require tsx/cjs gateway/src/main.ts` (env: gatewayEnvSchema,
// the README's table). Refuses to start without its servers unless HELPDESK_EMBEDDED=1 (docs/adr/0038);
// SERVICE_URLS may name any subset of the services (they are deployed one at a time), one at least.
// First: tracing starts before anything it instruments is loaded (OTEL_EXPORTER_OTLP_ENDPOINT set; kit telemetry/register.ts).
import '@helpdesk/kit/src/telemetry/register';
import { PUBLIC_OPERATIONS } from '@helpdesk/contracts';
import { createLogger, ensureTelemetry, InternalTokens, loadConfig, mongoDbName, onShutdown, SecretBox, shutdownTelemetry, startMetricsServer, useErrorDocsUrl } from '@helpdesk/kit';
import { gatewayEnvSchema, servicesWithoutUrl } from './config';
import { startGateway } from './index';

async function main(): Promise<void> {
  const env = loadConfig(gatewayEnvSchema);
  const logger = createLogger('gateway', env.LOG_LEVEL);
  // Says at start whether tracing is on, started too late, or could not start.
  ensureTelemetry('gateway', logger);
  useErrorDocsUrl(env.ERROR_DOCS_URL);
  if (!env.REDIS_URL) logger.warn('HELPDESK_EMBEDDED=1 and no REDIS_URL: in-memory rate limits and idempotency (one gateway only)');
  const unrouted = servicesWithoutUrl(PUBLIC_OPERATIONS, env.SERVICE_URLS);
  if (unrouted.length) logger.info({ servicesWithoutUrl: unrouted }, `no URL in SERVICE_URLS for ${unrouted.join(', ')}: their routes answer 503 service_unavailable`);
  const metrics = await startMetricsServer(env.METRICS_PORT, env.HOST);
  const gateway = await startGateway({
    port: env.PORT,
    host: env.HOST,
    mongoUrl: env.MONGO_URL,
    dbName: mongoDbName(env.MONGO_URL, env.MONGO_DB, 'gateway'),
    redisUrl: env.REDIS_URL,
    redisKeyPrefix: env.REDIS_KEY_PREFIX,
    tokens: new InternalTokens(env.INTERNAL_TOKEN_SECRET),
    streamTokenSecret: env.INTERNAL_TOKEN_SECRET,
    secrets: env.SECRETS_KEY ? new SecretBox(env.SECRETS_KEY, env.SECRETS_KEY_PREVIOUS) : undefined,
    services: env.SERVICE_URLS,
    trustedProxies: env.TRUSTED_PROXIES,
    logger,
    keyCacheTtlMs: env.KEY_CACHE_TTL_MS,
    rateLimits: {
      secretPerMinute: env.RATE_LIMIT_SECRET_PER_MINUTE,
      publishablePerMinute: env.RATE_LIMIT_PUBLISHABLE_PER_MINUTE,
    },
  });
  onShutdown(logger, [
    { name: 'metrics', close: () => metrics.stop() },
    { name: 'gateway', close: () => gateway.stop() },
    { name: 'telemetry', close: () => shutdownTelemetry() },
  ]);
  logger.info({ url: gateway.url, metrics: metrics.url, services: Object.keys(env.SERVICE_URLS), redis: Boolean(env.REDIS_URL) }, 'gateway ready');
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
