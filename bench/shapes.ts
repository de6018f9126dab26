/**
 * The two shapes the benchmarks run the platform in:
 * - one process, exactly as `npm start` starts it (embedded MongoDB in-process, in-process bus and
 *   stores), with its metrics on a port of their own;
 * - processes: `npm run start:processes` itself (@helpdesk/local's runProcesses): the embedded MongoDB
 *   server, each service and the gateway as separate processes, reaching MongoDB over TCP, each other
 *   over HTTP, RabbitMQ and Redis on loopback (names and key prefix of this run only, so nothing
 *   collides with other users of the broker). RabbitMQ is reached through a counting proxy
 *   (bench/amqp-counter.ts) that reads what is published and delivered.
 *
 * `BENCH_ROOT=<another checkout>` runs that tree's platform (a "before"); for the processes shape it
 * needs its `npm run start:processes`.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { deleteAmqpNames, runProcesses } from '@helpdesk/local';
import { startAmqpCounter, type AmqpCounts } from './amqp-counter';
import { startMongoCounter, type MongoCounter } from './mongo-counter';
import { freePort, start, stop } from './processes';

/** Where the platform's code is run from: this tree, or BENCH_ROOT. */
const ROOT = process.env.BENCH_ROOT ? path.resolve(process.env.BENCH_ROOT) : path.resolve(__dirname, '..');

/** One OS process of a shape, by what it runs (`gateway`, `ticketing`, `notifications#2`, `mongodb`, …). */
export interface ShapeProcess {
  name: string;
  pid: number;
  /** Not part of the platform as deployed (the local launcher and npm): shown, never added in. */
  tooling?: boolean;
}

export interface RunningShape {
  shape: 'one' | 'processes';
  /** `http://…/api/v1` */
  baseUrl: string;
  teamId: string;
  /** A secret test key. */
  secretKey: string;
  /** Its processes now (a restarted one has a new pid). */
  processes(): ShapeProcess[];
  /** The platform's MongoDB (the embedded server over TCP, in both shapes). */
  mongoUrl: string;
  /** Every process's Prometheus endpoint. */
  metricsUrls(): string[];
  /** What was published to and delivered by RabbitMQ so far (processes shape only). */
  amqpCounts?: () => AmqpCounts;
  /** Store commands so far by `<database> <command>` (processes shape with `byCommand` only). */
  storeCommands?: () => Map<string, number>;
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

export async function startOneProcess(opts: { cpuProfDir?: string; env?: Record<string, string> } = {}): Promise<RunningShape> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'helpdesk-bench-'));
  const metricsPort = await freePort();
  const platform = await start(
    'deploy/local/src/main.ts',
    { ...NO_INFRA, ...RAISED_LIMITS, ...INBOUND_ANY_PORT, PORT: '0', DATA_DIR: dataDir, EMBEDDED_MONGO_PORT: '0', METRICS_PORT: String(metricsPort), LOG_LEVEL: 'warn', ...opts.env },
    /Ready: (\S+)/,
    profArgs(opts.cpuProfDir, 'platform'),
  );
  const creds = JSON.parse(readFileSync(path.join(dataDir, 'credentials.json'), 'utf8'));
  return {
    shape: 'one',
    baseUrl: platform.match[1]!,
    teamId: creds.teamId,
    secretKey: creds.keys.sk_test,
    processes: () => [{ name: 'platform (all in one)', pid: platform.child.pid! }],
    mongoUrl: creds.mongoUrl,
    metricsUrls: () => [`http://127.0.0.1:${metricsPort}/metrics`],
    async stop() {
      await stop(platform.child);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The pids of `pid`'s children (Linux: /proc/<pid>/task/*\/children). */
function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/**
 * `byCommand`: the embedded MongoDB server is started here (as the launcher starts it) and reached
 * through a counting proxy (bench/mongo-counter.ts) given to the launcher as MONGO_URL, as a real
 * MongoDB would be (each process its own database, MONGO_DB): store commands by database and name.
 */
export async function startProcesses(
  infra: { amqpUrl: string; redisUrl: string },
  opts: { cpuProfDir?: string; env?: Record<string, string>; logLevel?: string; byCommand?: boolean; amqpCounter?: boolean } = {},
): Promise<RunningShape> {
  const tag = `bench${process.pid}x${Date.now().toString(36)}`;
  const amqpNames = { exchange: `${tag}.events`, queuePrefix: tag };
  // `amqpCounter: false`: RabbitMQ reached directly (the counting proxy lives in the benchmark's own
  // process, whose event loop a benchmark that reads thousands of streams keeps busy).
  const counter = opts.amqpCounter === false ? null : await startAmqpCounter(infra.amqpUrl);
  let mongo: { child: ChildProcess; counter: MongoCounter; dir: string } | null = null;
  const cleanup = async () => {
    await counter?.close();
    if (mongo) {
      await mongo.counter.close();
      await stop(mongo.child);
      rmSync(mongo.dir, { recursive: true, force: true });
    }
    await deleteAmqpNames(infra.amqpUrl, amqpNames).catch((err: Error) => console.error(`could not remove the run's queues (${tag}.*): ${err.message}`));
  };
  let run;
  try {
    if (opts.byCommand) {
      const dir = mkdtempSync(path.join(tmpdir(), 'helpdesk-bench-mongo-'));
      const server = await start('shared/mongo-embedded/src/cli.ts', {}, /^(mongodb:\/\/\S+)/m, [], ['--port', '0', '--host', '127.0.0.1', '--data', dir, '--quiet']);
      mongo = { child: server.child, counter: await startMongoCounter(server.match[1]!), dir };
    }
    run = await runProcesses(
      {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        ...NO_INFRA,
        ...RAISED_LIMITS,
        ...INBOUND_ANY_PORT,
        DATA_DIR: '', // a temporary one, removed at stop
        PORT: '0',
        EMBEDDED_MONGO_PORT: '0',
        ...(mongo ? { MONGO_URL: mongo.counter.url } : {}),
        AMQP_URL: counter?.url ?? infra.amqpUrl,
        REDIS_URL: infra.redisUrl,
        AMQP_EXCHANGE: amqpNames.exchange,
        AMQP_QUEUE_PREFIX: amqpNames.queuePrefix,
        REDIS_KEY_PREFIX: `${tag}:`,
        INTERNAL_TOKEN_SECRET: SECRET,
        // As production's overlay sets it (deploy/k8s/overlays/production).
        LOG_LEVEL: opts.logLevel ?? 'info',
        // Every node process of the run (npm and the launcher too) writes a profile; pids.json names them.
        // (Node 20 refuses --cpu-prof in NODE_OPTIONS: a preload starts the profiler instead.)
        ...(opts.cpuProfDir
          ? { NODE_OPTIONS: `--require ${path.join(__dirname, 'cpu-prof-preload.cjs')}`, BENCH_CPU_PROF_DIR: path.join(opts.cpuProfDir, 'processes') }
          : {}),
        ...opts.env,
      },
      { cwd: ROOT, timeoutMs: 240_000 },
    );
  } catch (err) {
    await cleanup();
    throw err;
  }
  const r = run;
  const processes = (): ShapeProcess[] => {
    const file = r.processes();
    const launcher = childrenOf(r.pid);
    const replicas = (name: string) => file.processes.filter((p) => p.name === name).length;
    return [
      ...file.processes.filter((p) => p.pid !== null).map((p) => ({ name: replicas(p.name) > 1 ? `${p.name}#${p.replica}` : p.name, pid: p.pid! })),
      ...(file.mongodb ? [{ name: 'mongodb', pid: file.mongodb.pid }] : []),
      ...(mongo ? [{ name: 'mongodb', pid: mongo.child.pid! }] : []),
      ...launcher.map((pid) => ({ name: 'launcher (local only)', pid, tooling: true })),
      { name: 'npm (local only)', pid: r.pid, tooling: true },
    ];
  };
  return {
    shape: 'processes',
    baseUrl: r.baseUrl,
    teamId: r.credentials.teamId,
    secretKey: r.credentials.keys.sk_test,
    processes,
    mongoUrl: r.credentials.mongoUrl,
    metricsUrls: () => r.processes().processes.map((p) => p.metricsUrl),
    amqpCounts: counter?.counts,
    storeCommands: mongo?.counter.counts,
    async stop() {
      const last = processes();
      await r.stop();
      if (opts.cpuProfDir) {
        mkdirSync(path.join(opts.cpuProfDir, 'processes'), { recursive: true });
        writeFileSync(path.join(opts.cpuProfDir, 'processes', 'pids.json'), JSON.stringify(last, null, 2) + '\n');
      }
      await cleanup();
    },
  };
}
