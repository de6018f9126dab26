import { ConfigError, createHostLogger, loadConfig, onShutdown, SecretBox, startMetricsServer, type MetricsServer } from '@helpdesk/kit';
import { ensureConsoleBuilt } from '@helpdesk/gateway';
import { localEnvSchema } from './config';
import { bootPlatform, type Platform } from './platform';
import { banner } from './banner';
import { ensureDevCredentials, ownerSignInRow } from './credentials';
import { ensureSecretsKey } from './secrets-key';

/**
 * `npm start`: the whole platform in one process on embedded defaults.
 *
 * It stops gracefully (requests drained, journal flushed, port and data folder released) on SIGINT
 * or SIGTERM, also when they arrive during start-up, and when the process that launched it goes away
 * without stopping it (see watchParent). The root `start` script runs it with `exec`, so that under
 * `npm start` it is npm's own child and gets the signals npm forwards (a `sh -c` layer in between
 * swallows SIGINT and dies of SIGTERM alone, leaving this process orphaned).
 */
async function main(): Promise<void> {
  const env = loadConfig(localEnvSchema);
  const logger = createHostLogger('local', env.LOG_LEVEL);
  // The console's build, fresh for these sources (a no-op after npm install; docs/adr/0069).
  ensureConsoleBuilt((line) => logger.info(line));
  let stopping = false;
  let metrics: MetricsServer | undefined;
  const secrets = new SecretBox(await ensureSecretsKey(env.DATA_DIR, env.SECRETS_KEY), env.SECRETS_KEY_PREVIOUS);
  const booting: Promise<Platform> = bootPlatform({
    port: env.PORT,
    host: env.HOST,
    dataDir: env.DATA_DIR,
    embeddedMongoPort: env.EMBEDDED_MONGO_PORT,
    mongoUrl: env.MONGO_URL,
    amqpUrl: env.AMQP_URL,
    redisUrl: env.REDIS_URL,
    attachmentsS3Url: env.ATTACHMENTS_S3_URL,
    internalTokenSecret: env.INTERNAL_TOKEN_SECRET,
    secrets,
    logger,
    rateLimits: { secretPerMinute: env.RATE_LIMIT_SECRET_PER_MINUTE, publishablePerMinute: env.RATE_LIMIT_PUBLISHABLE_PER_MINUTE },
    webhooks: { allowLoopback: env.WEBHOOKS_ALLOW_LOOPBACK, timeoutMs: env.WEBHOOKS_TIMEOUT_MS },
    smtpUrl: env.SMTP_URL,
    inboundEmail: {
      domain: env.INBOUND_EMAIL_DOMAIN,
      maxBytes: env.INBOUND_EMAIL_MAX_BYTES,
      smtp: { host: env.HOST, port: env.INBOUND_SMTP_PORT },
      http: { host: env.HOST, port: env.INBOUND_HTTP_PORT },
    },
  });
  // Registered before the platform is up: a signal during start-up waits for the start, then stops it.
  const shutdown = onShutdown(logger, [
    {
      name: 'platform',
      close: () => {
        stopping = true;
        void metrics?.stop();
        return booting.then(
          (p) => p.stop(),
          () => undefined,
        );
      },
    },
  ]);
  watchParent(() => {
    logger.warn({ parentPid: process.ppid }, 'the process that started the platform is gone; shutting down');
    void shutdown().then(() => process.exit(0));
  });

  try {
    const platform = await booting;
    if (stopping) return;
    const { credentials, created, file } = await ensureDevCredentials(platform.gateway.admin, env.DATA_DIR, {
      baseUrl: platform.baseUrl,
      mongoUrl: platform.mongoUrl,
    });
    if (stopping) return;
    if (env.METRICS_PORT !== undefined) metrics = await startMetricsServer(env.METRICS_PORT, env.HOST);
    const inbound = await platform.ticketing.rules.inboundEmail.listening?.catch(() => null);
    const details: Array<[string, string]> = [
      await ownerSignInRow(platform.gateway.admin, credentials),
      ['MongoDB', `${platform.mongoUrl}${platform.embeddedMongo ? ` (embedded, journal in ${env.DATA_DIR}/mongo)` : ''}`],
      ['bus', `${env.AMQP_URL ? 'RabbitMQ' : 'in-process'}; rate limits and idempotency ${env.REDIS_URL ? 'in Redis' : 'in-process'}`],
      ...(metrics ? [['metrics', metrics.url] as [string, string]] : []),
      ...(inbound ? [['inbound', `SMTP ${env.HOST}:${inbound.smtpPort} (to ${credentials.teamId}@${env.INBOUND_EMAIL_DOMAIN}), webhook http://${env.HOST}:${inbound.httpPort}/inbound-email/{teamId}/messages`] as [string, string]] : []),
    ];
    process.stdout.write(banner({ title: 'Helpdesk platform', credentials, created, file, details, baseUrl: platform.baseUrl }));
  } catch (err) {
    if (stopping) return; // asked to stop during start-up: the shutdown path exits
    throw err;
  }
}

/**
 * Calls `onGone` once the process that started this one has gone away (npm or a supervisor killed
 * with SIGKILL, a crashed terminal wrapper): an orphaned platform would keep holding the gateway port
 * and the data folder. An orphan is re-parented, so its ppid changes (`npm start` needs a POSIX shell
 * anyway: the script `exec`s node). A process started by init, or as a container's main process (ppid
 * 0 or 1), has no launcher to outlive and is not watched.
 */
function watchParent(onGone: () => void, intervalMs = 500): void {
  const parent = process.ppid;
  if (parent <= 1) return;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    onGone();
  }, intervalMs);
  timer.unref();
}

main().catch((err) => {
  if (err instanceof ConfigError) console.error(err.message);
  else console.error('start-up failed:', err);
  process.exit(1);
});
