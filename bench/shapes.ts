/**
 * The two shapes the gateway benchmark runs the platform in:
 * - one process, exactly as `npm start` starts it (embedded MongoDB in-process, in-process bus and stores);
 * - production: the embedded MongoDB server, each service and the gateway as separate processes,
 *   reaching MongoDB over TCP, each other over HTTP, RabbitMQ and Redis on loopback (names and key
 *   prefix of this run only, so nothing collides with other users of the broker).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { createGatewayAdmin } from '@helpdesk/gateway';
import { start, stop } from './processes';

export interface RunningShape {
  /** `http://…/api/v1` */
  baseUrl: string;
  teamId: string;
  /** A secret test key. */
  secretKey: string;
  /** The platform's processes (their CPU time is read per row). */
  pids: number[];
  stop(): Promise<void>;
}

const RAISED_LIMITS = { RATE_LIMIT_SECRET_PER_MINUTE: '1000000', RATE_LIMIT_PUBLISHABLE_PER_MINUTE: '1000000' };
/** Blank: each shape sets what it uses, the caller's environment never leaks in. */
const NO_INFRA = { MONGO_URL: '', AMQP_URL: '', REDIS_URL: '' };
const SECRET = 'bench-internal-token-secret-0123456789abcdef';
/** Ticketing's inbound mail listeners on any free port (their defaults collide with a concurrent run). */
const INBOUND_ANY_PORT = { INBOUND_SMTP_PORT: '0', INBOUND_HTTP_PORT: '0' };

/** `--cpu-prof` for a process named `name`, writing into `dir`. */
const profArgs = (dir: string | undefined, name: string) => (dir ? ['--cpu-prof', `--cpu-prof-dir=${path.join(dir, name)}`] : []);

export async function startOneProcess(cpuProfDir?: string): Promise<RunningShape> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'helpdesk-bench-'));
  const platform = await start(
    'deploy/local/src/main.ts',
    { ...NO_INFRA, ...RAISED_LIMITS, ...INBOUND_ANY_PORT, PORT: '0', DATA_DIR: dataDir, EMBEDDED_MONGO_PORT: '0', LOG_LEVEL: 'warn' },
    /Ready: (\S+)/,
    profArgs(cpuProfDir, 'platform'),
  );
  const creds = JSON.parse(readFileSync(path.join(dataDir, 'credentials.json'), 'utf8'));
  return {
    baseUrl: platform.match[1],
    teamId: creds.teamId,
    secretKey: creds.keys.sk_test,
    pids: [platform.child.pid!],
    async stop() {
      await stop(platform.child);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export async function startMultiProcess(infra: { amqpUrl: string; redisUrl: string }, cpuProfDir?: string): Promise<RunningShape> {
  const children: ChildProcess[] = [];
  const dataDir = mkdtempSync(path.join(tmpdir(), 'helpdesk-bench-'));
  const stopAll = async () => {
    for (const c of children.reverse()) await stop(c);
    rmSync(dataDir, { recursive: true, force: true });
  };
  const run = `bench${process.pid}`;
  try {
    const mongo = await start('shared/mongo-embedded/src/cli.ts', {}, /^(mongodb:\/\/\S+)/m, profArgs(cpuProfDir, 'mongo'), ['--port', '0', '--quiet']);
    children.push(mongo.child);
    const mongoUrl = mongo.match[1];
    const common = {
      ...NO_INFRA,
      MONGO_URL: mongoUrl,
      AMQP_URL: infra.amqpUrl,
      AMQP_EXCHANGE: `${run}.events`,
      AMQP_QUEUE_PREFIX: run,
      INTERNAL_TOKEN_SECRET: SECRET,
      LOG_LEVEL: 'info',
      PORT: '0',
      // Each process serves metrics on a port of its own (the default 9464 would collide).
      METRICS_PORT: '0',
    };
    const listening = /"url":"http:\/\/[^:"]+:(\d+)/;
    const service = async (name: string, env: Record<string, string> = {}) => {
      const s = await start(`services/${name}/src/main.ts`, { ...common, ...env }, listening, profArgs(cpuProfDir, name));
      children.push(s.child);
      return `http://127.0.0.1:${s.match[1]}`;
    };
    // Every service of the manifest, each its own process (the ones others call first): the gateway
    // refuses to start without a URL for each, and ticket.created feeds the projections of several.
    const [customers, knowledge, workspace, webhooks, game] = await Promise.all(['customers', 'knowledge', 'workspace', 'webhooks', 'game'].map((n) => service(n)));
    const [ticketing, community, notifications] = await Promise.all([
      service('ticketing', { CUSTOMERS_URL: customers, ...INBOUND_ANY_PORT }),
      service('community', { CUSTOMERS_URL: customers }),
      service('notifications', { WORKSPACE_URL: workspace, DATA_DIR: dataDir }),
    ]);
    const dataops = await service('dataops', { TICKETING_URL: ticketing, CUSTOMERS_URL: customers, KNOWLEDGE_URL: knowledge, COMMUNITY_URL: community, WORKSPACE_URL: workspace });
    const urls = { ticketing, customers, webhooks, knowledge, workspace, game, community, notifications, dataops };
    const gateway = await start(
      'gateway/src/main.ts',
      {
        ...common,
        ...RAISED_LIMITS,
        HOST: '127.0.0.1',
        REDIS_URL: infra.redisUrl,
        REDIS_KEY_PREFIX: `${run}:`,
        SERVICE_URLS: Object.entries(urls).map(([n, u]) => `${n}=${u}`).join(','),
      },
      listening,
      profArgs(cpuProfDir, 'gateway'),
    );
    children.push(gateway.child);
    const admin = await createGatewayAdmin(mongoUrl);
    const team = await admin.createTeam({ name: 'Benchmark team' });
    const { key } = await admin.createKey({ teamId: team.id, type: 'secret', mode: 'test', name: 'bench' });
    await admin.close();
    return { baseUrl: `http://127.0.0.1:${gateway.match[1]}/api/v1`, teamId: team.id, secretKey: key, pids: children.map((c) => c.pid!), stop: stopAll };
  } catch (err) {
    await stopAll();
    throw err;
  }
}
