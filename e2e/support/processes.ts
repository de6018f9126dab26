/**
 * The test platform on `npm run start:processes` (HELPDESK_PLATFORM=processes, real RabbitMQ and
 * Redis required): every process separate, as deployed. A suite sees the same TestPlatform as in one
 * process, with what exists from outside the processes: the gateway's URL, the team admin (over the
 * gateway's database), and a bus of the test's own per service (same exchange and queue names) to
 * publish on or observe. Suites that reach into a service's internals (`platform.ticketing.rules`…)
 * run in the one-process shape only.
 */
import { randomBytes } from 'node:crypto';
import { createBus, createLogger, InternalTokens, type EventBus } from '@helpdesk/kit';
import { createGatewayAdmin, workspaceLink } from '@helpdesk/gateway';
import { deleteAmqpNames, runProcesses, SERVICES as REGISTRY_SERVICES, type Platform, type PlatformOptions } from '@helpdesk/local';
import { metricFromText, type TestPlatform, type withTeams as WithTeams } from './platform';

const SERVICES = REGISTRY_SERVICES.map((s) => s.name);

/** PlatformOptions a processes run can honour, as the variables its processes read. */
function optionsAsEnv(o: Partial<PlatformOptions>): Record<string, string> {
  const env: Record<string, string> = {};
  const { stream, webhooks, rateLimits, ...rest } = o;
  const unsupported = Object.keys(rest).filter((k) => (rest as Record<string, unknown>)[k] !== undefined);
  if (unsupported.length) throw new Error(`HELPDESK_PLATFORM=processes cannot apply ${unsupported.join(', ')}: run this suite in one process`);
  if (stream?.heartbeatMs !== undefined) env.STREAM_HEARTBEAT_MS = String(stream.heartbeatMs);
  if (stream?.maxBufferedBytes !== undefined) env.STREAM_MAX_BUFFERED_BYTES = String(stream.maxBufferedBytes);
  if (webhooks?.allowLoopback !== undefined) env.WEBHOOKS_ALLOW_LOOPBACK = String(webhooks.allowLoopback);
  if (webhooks?.timeoutMs !== undefined) env.WEBHOOKS_TIMEOUT_MS = String(webhooks.timeoutMs);
  env.RATE_LIMIT_SECRET_PER_MINUTE = String(rateLimits?.secretPerMinute ?? 100_000);
  env.RATE_LIMIT_PUBLISHABLE_PER_MINUTE = String(rateLimits?.publishablePerMinute ?? 100_000);
  return env;
}

export async function startProcessesPlatform(overrides: Partial<PlatformOptions>, withTeams: typeof WithTeams): Promise<TestPlatform> {
  const amqpUrl = process.env.AMQP_URL;
  const redisUrl = process.env.REDIS_URL;
  if (!amqpUrl || !redisUrl) throw new Error('HELPDESK_PLATFORM=processes needs AMQP_URL and REDIS_URL');
  const tag = `p${randomBytes(5).toString('hex')}`;
  const amqpNames = { exchange: `helpdesk.events.${tag}`, queuePrefix: `helpdesk.${tag}` };
  const secret = randomBytes(32).toString('hex');
  // DATA_DIR blank: a temporary data folder of its own, removed by run.stop().
  const run = await runProcesses({
    ...process.env,
    ...optionsAsEnv(overrides),
    DATA_DIR: '',
    PORT: '0',
    EMBEDDED_MONGO_PORT: '0',
    INBOUND_SMTP_PORT: '0',
    INBOUND_HTTP_PORT: '0',
    AMQP_EXCHANGE: amqpNames.exchange,
    AMQP_QUEUE_PREFIX: amqpNames.queuePrefix,
    REDIS_KEY_PREFIX: `hd:${tag}:`,
    INTERNAL_TOKEN_SECRET: secret,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
  });
  const { baseUrl, credentials } = run;
  const processes = run.processes().processes;
  const workspaceUrl = processes.find((p) => p.name === 'workspace')!.url;
  const gatewayDb = new URL(credentials.mongoUrl);
  gatewayDb.pathname = '/gateway';
  const admin = await createGatewayAdmin(gatewayDb.toString(), 'gateway', workspaceLink(workspaceUrl, new InternalTokens(secret)));
  const logger = createLogger('test-processes', 'silent');
  const buses: Record<string, EventBus> = Object.fromEntries(SERVICES.map((s) => [s, createBus({ amqpUrl, logger, ...amqpNames })]));
  const platform = { baseUrl, buses, mongoUrl: credentials.mongoUrl, embeddedMongo: null, gateway: { admin } } as unknown as Platform;
  const observers: string[] = [];
  const stop = async () => {
    await Promise.all(Object.values(buses).map((b) => b.close()));
    await admin.close();
    await run.stop();
    await deleteAmqpNames(amqpUrl, amqpNames, [...SERVICES, ...observers]);
  };
  // Summed over the process's replicas, as a dashboard sums them.
  const metric = async (name: string, metricName: string) => {
    let sum = 0;
    for (const p of processes.filter((x) => x.name === name)) sum += metricFromText(await (await fetch(p.metricsUrl)).text(), metricName);
    return sum;
  };
  return withTeams('processes', platform, amqpNames, stop, observers, metric);
}
