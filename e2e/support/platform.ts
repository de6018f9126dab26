import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { optionalUrl, createLogger, metricsText } from '@helpdesk/kit';
import { bootPlatform, type Platform, type PlatformOptions } from '@helpdesk/local';
import type { EventEnvelope, Partition } from '@helpdesk/contracts';
import { ApiClient } from '@helpdesk/testing';
import { deleteAmqpNames } from './amqp-names';
import { startProcessesPlatform } from './processes';

/**
 * The test run's environment: set AMQP_URL/REDIS_URL to run the suite against real servers, and
 * HELPDESK_PLATFORM=processes to run it against `npm run start:processes` (support/processes.ts).
 */
const testEnvSchema = z.object({
  AMQP_URL: optionalUrl(),
  REDIS_URL: optionalUrl(),
  MONGO_URL: optionalUrl(),
  TEST_LOG_LEVEL: z.string().default('silent'),
  HELPDESK_PLATFORM: z.enum(['one-process', 'processes']).default('one-process'),
});

export interface TeamKeys {
  teamId: string;
  sk_test: string;
  pk_test: string;
  sk_live: string;
  pk_live: string;
}

export interface TestPlatform {
  /** The platform's shape: `processes` is `npm run start:processes` (HELPDESK_PLATFORM=processes). */
  shape: 'one-process' | 'processes';
  platform: Platform;
  baseUrl: string;
  /** The first team's four keys, and a second team's, for isolation tests. */
  team: TeamKeys;
  otherTeam: TeamKeys;
  /** Client on the first team's sk_test key; `.withKey(k)` for others. */
  api: ApiClient;
  /** The RabbitMQ exchange and queue prefix of this boot (used when AMQP_URL is set). */
  amqpNames: { exchange: string; queuePrefix: string };
  /** `/teams/{teamId}` of the first team. */
  teamPath: string;
  createTeam(name?: string): Promise<TeamKeys>;
  /**
   * Subscribes a test's observer to `patterns` on a service's bus, under a queue of its own that
   * `stop()` removes again from a shared RabbitMQ.
   */
  observe(service: string, patterns: string[], handler: (e: EventEnvelope) => Promise<void>): Promise<void>;
  /** A Prometheus metric's value (summed over its labels) as `process` exports it (one process: all are this one). */
  metric(process: string, name: string): Promise<number>;
  stop(): Promise<void>;
}

/** The sum of a metric's samples in Prometheus text (`name value` and `name{…} value` lines). */
export function metricFromText(text: string, name: string): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith(`${name} `) || line.startsWith(`${name}{`)) sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}

/**
 * Boots the whole platform in this process (embedded MongoDB in memory; the memory bus and store
 * unless the environment names real ones), with two teams and their keys.
 */
export async function startTestPlatform(overrides: Partial<PlatformOptions> = {}): Promise<TestPlatform> {
  const env = testEnvSchema.parse(process.env);
  if (env.HELPDESK_PLATFORM === 'processes') return startProcessesPlatform(overrides, withTeams);
  // Each boot gets its own RabbitMQ exchange/queues and Redis key space, removed again at stop,
  // so test files sharing the machine's brokers never see each other's messages or counters.
  const run = `t${randomBytes(5).toString('hex')}`;
  const amqpUrl = overrides.amqpUrl ?? env.AMQP_URL;
  const amqpNames = { exchange: `helpdesk.events.${run}`, queuePrefix: `helpdesk.${run}` };
  const platform = await bootPlatform({
    port: 0,
    dataDir: null,
    mongoUrl: env.MONGO_URL,
    amqpUrl,
    amqpNames,
    redisUrl: env.REDIS_URL,
    redisKeyPrefix: `hd:${run}:`,
    internalTokenSecret: randomBytes(32).toString('hex'),
    logger: createLogger('test-platform', env.TEST_LOG_LEVEL),
    rateLimits: { secretPerMinute: 100_000, publishablePerMinute: 100_000 },
    ...overrides,
  });
  const observers: string[] = [];
  const stop = async () => {
    await platform.stop();
    if (amqpUrl) await deleteAmqpNames(amqpUrl, amqpNames, [...Object.keys(platform.buses), ...observers]);
  };
  return withTeams('one-process', platform, amqpNames, stop, observers, async (_process, name) => metricFromText(await metricsText(), name));
}

/** The test platform's two teams, client and observers over a started platform (either shape). */
export async function withTeams(
  shape: TestPlatform['shape'],
  platform: Platform,
  amqpNames: { exchange: string; queuePrefix: string },
  stop: () => Promise<void>,
  observers: string[],
  metric: TestPlatform['metric'],
): Promise<TestPlatform> {
  const admin = platform.gateway.admin;
  const createTeam = async (name = `Team ${randomBytes(3).toString('hex')}`): Promise<TeamKeys> => {
    const team = await admin.createTeam({ name });
    const key = async (type: 'secret' | 'publishable', mode: Partition) =>
      (await admin.createKey({ teamId: team.id, type, mode })).key;
    return {
      teamId: team.id,
      sk_test: await key('secret', 'test'),
      pk_test: await key('publishable', 'test'),
      sk_live: await key('secret', 'live'),
      pk_live: await key('publishable', 'live'),
    };
  };
  const team = await createTeam('Acme Support');
  const otherTeam = await createTeam('Other Co');
  return {
    shape,
    platform,
    baseUrl: platform.baseUrl,
    team,
    otherTeam,
    api: new ApiClient(platform.baseUrl, team.sk_test),
    teamPath: `/teams/${team.teamId}`,
    amqpNames,
    createTeam,
    async observe(service, patterns, handler) {
      const bus = platform.buses[service];
      if (!bus) throw new Error(`no bus for service ${service}`);
      const queue = `e2e-observer-${service}-${randomBytes(4).toString('hex')}`;
      observers.push(queue);
      await bus.subscribe(queue, patterns, handler);
    },
    metric,
    stop,
  };
}
