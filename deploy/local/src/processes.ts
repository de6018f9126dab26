/**
 * `npm run start:processes`: the production topology on one machine. The embedded MongoDB server,
 * every service and the gateway each as its own process, started from the registry
 * (deploy/registry.ts) exactly as a container starts them (`node --require tsx/cjs --require
 * <telemetry preload> <entry>`, NODE_ENV=production, no HELPDESK_EMBEDDED), on the RabbitMQ and
 * Redis that AMQP_URL and REDIS_URL name. Services with several local replicas (notifications) sit
 * behind a round-robin port, as behind a Kubernetes Service.
 *
 * Every child gets this process's environment (so AMQP_EXCHANGE, AMQP_QUEUE_PREFIX,
 * REDIS_KEY_PREFIX, rate limits, WEBHOOKS_ALLOW_LOOPBACK, OTEL_* … reach the processes that read
 * them) plus what the launcher decides: ports, URLs of the other processes, each service's own
 * database. The gateway gets every replica's own URL (it spreads requests and held streams over them
 * itself, docs/adr/0075); the round-robin port serves the other processes that call such a service. It prints `Ready: <base url>` and writes DATA_DIR/credentials.json as `npm start` does,
 * and DATA_DIR/processes.json (every process's pid, URL and metrics URL). A child that fails before
 * it is ready stops the whole start with its own message (a missing variable names itself and the
 * process); one that dies later is restarted with backoff, as a Kubernetes restart policy would.
 * SIGINT or SIGTERM stops the gateway first, then the services, then the database.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { ConfigError, InternalTokens, loadConfig } from '@helpdesk/kit';
import { createGatewayAdmin, ensureConsoleBuilt, workspaceLink } from '@helpdesk/gateway';
import { PROCESSES, SERVICES, type ProcessEntry } from '../../registry';
import { gatewayServiceUrls, startBalancer, type Balancer } from './balancer';
import { banner } from './banner';
import { processesEnvSchema, type ProcessesEnv } from './config';
import { ensureDevCredentials, ownerSignInRow } from './credentials';
import { ensureSecretsKey } from './secrets-key';

const ROOT = path.resolve(__dirname, '../../..');
/** How a container runs a process (deploy/docker/Dockerfile): sources through tsx, tracing preloaded. */
const NODE_ARGS = ['--require', 'tsx/cjs', '--require', './shared/kit/src/telemetry/register.ts'];

type Env = ProcessesEnv;

interface Child {
  entry: ProcessEntry;
  replica: number;
  port: number;
  metricsPort: number;
  env: NodeJS.ProcessEnv;
  proc: ChildProcess | null;
  restarts: number;
  /** The last lines it printed (shown when it fails to start). */
  tail: string[];
}

/**
 * The first port of the kernel's ephemeral range (what a bind to port 0 gets). The ports handed to
 * the processes are taken below it: a child binds its port seconds after the launcher chose it, and a
 * port from the ephemeral range could meanwhile be given to anyone binding port 0 on the machine.
 */
const EPHEMERAL_LOW = (() => {
  try {
    return Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || 32768;
  } catch {
    return 32768;
  }
})();
const PORT_RANGE = { low: 10_000, high: Math.max(12_000, Math.min(EPHEMERAL_LOW, 65_536)) };

/** A port nothing listens on now, below the ephemeral range (random, so concurrent runs rarely meet). */
async function freePort(host = '127.0.0.1'): Promise<number> {
  for (let tries = 0; ; tries++) {
    const port = PORT_RANGE.low + Math.floor(Math.random() * (PORT_RANGE.high - PORT_RANGE.low));
    const free = await new Promise<boolean>((resolve) => {
      const s = createServer().once('error', () => resolve(false)).listen(port, host, () => s.close(() => resolve(true)));
    });
    if (free) return port;
    if (tries > 200) throw new ConfigError(`no free port between ${PORT_RANGE.low} and ${PORT_RANGE.high}`);
  }
}

/**
 * How long to wait before restarting a process that died after `restarts` earlier restarts, as a
 * container's restart policy would: 1 s, doubling, at most 30 s.
 */
const restartDelay = (restarts: number): number => Math.min(30_000, 1000 * 2 ** Math.min(restarts, 5));

const log = (msg: string, fields: Record<string, unknown> = {}) =>
  process.stderr.write(JSON.stringify({ level: 30, time: Date.now(), service: 'start:processes', ...fields, msg }) + '\n');

/** A child process with its output passed through (JSON log lines name their service) and its last lines kept. */
function spawnNode(args: string[], env: NodeJS.ProcessEnv, tail: string[]): ChildProcess {
  const proc = spawn(process.execPath, [...NODE_ARGS, ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  for (const [stream, out] of [[proc.stdout!, process.stdout], [proc.stderr!, process.stderr]] as const) {
    stream.on('data', (chunk: Buffer) => {
      out.write(chunk);
      tail.push(...chunk.toString().split('\n').filter(Boolean));
      tail.splice(0, Math.max(0, tail.length - 20));
    });
  }
  return proc;
}

const exited = (proc: ChildProcess) =>
  new Promise<number | null>((resolve) => (proc.exitCode !== null || proc.signalCode !== null ? resolve(proc.exitCode) : proc.once('exit', (code) => resolve(code))));

/** Resolves once `url` answers 200; rejects when `proc` exits first or after `timeoutMs`. */
async function ready(url: string, proc: ChildProcess, what: string, tail: string[], timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let gone = false;
  void exited(proc).then(() => (gone = true));
  for (;;) {
    if (gone) throw new ConfigError(`${what} exited before it was ready (code ${proc.exitCode}):\n${tail.slice(-10).join('\n')}`);
    const ok = await fetch(url, { signal: AbortSignal.timeout(2000) }).then((r) => r.ok, () => false);
    if (ok) return;
    if (Date.now() > deadline) throw new ConfigError(`${what} was not ready within ${timeoutMs / 1000} s (${url}):\n${tail.slice(-10).join('\n')}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * The embedded MongoDB server as its own process (journal under DATA_DIR/mongo); its URL. `ports`:
 * the ones to try in turn (the preferred one, then any free one; a restart only its own).
 */
async function startMongo(env: Env, stopping: () => boolean, ports = env.EMBEDDED_MONGO_PORT ? [env.EMBEDDED_MONGO_PORT, 0] : [0]): Promise<{ url: string; proc: ChildProcess }> {
  const dataDir = path.join(env.DATA_DIR, 'mongo');
  for (const port of ports) {
    const tail: string[] = [];
    const proc = spawn(process.execPath, ['--require', 'tsx/cjs', 'shared/mongo-embedded/src/cli.ts', '--port', String(port), '--host', env.HOST, '--data', dataDir], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    proc.stderr!.on('data', (d: Buffer) => tail.push(d.toString()));
    const url = await new Promise<string | null>((resolve) => {
      let out = '';
      proc.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /^(mongodb:\/\/\S+)/m.exec(out);
        if (m) resolve(m[1]!);
      });
      proc.once('exit', () => resolve(null));
    });
    if (url) return { url, proc };
    if (stopping() || !tail.join('').includes('EADDRINUSE')) throw new ConfigError(`the embedded MongoDB server did not start:\n${tail.join('')}`);
    log('embedded MongoDB port taken, using any free port', { port });
  }
  throw new ConfigError('the embedded MongoDB server did not start');
}

/** A process's own database: a path on the embedded server's URL, MONGO_DB on a given one. */
function databaseEnv(env: Env, mongoUrl: string, name: string): { MONGO_URL: string; MONGO_DB?: string } {
  if (env.MONGO_URL) return { MONGO_URL: env.MONGO_URL, MONGO_DB: name };
  const u = new URL(mongoUrl);
  u.pathname = `/${name}`;
  return { MONGO_URL: u.toString() };
}

async function main(): Promise<void> {
  const env = loadConfig(processesEnvSchema);
  const dataDir = path.resolve(env.DATA_DIR);
  mkdirSync(dataDir, { recursive: true });
  // The console's build, fresh for these sources (a no-op after npm install; docs/adr/0069).
  ensureConsoleBuilt();
  let stopping = false;
  const children: Child[] = [];
  const balancers: Balancer[] = [];
  let mongo: ChildProcess | null = null;

  const stopAll = async () => {
    stopping = true;
    // The gateway first (no new requests), then the services, the database last.
    const order = [...children].sort((a, b) => Number(b.entry.kind === 'gateway') - Number(a.entry.kind === 'gateway'));
    for (const group of [order.filter((c) => c.entry.kind === 'gateway'), order.filter((c) => c.entry.kind !== 'gateway')]) {
      await Promise.all(group.map((c) => stopChild(c.proc)));
    }
    await Promise.all(balancers.map((b) => b.close()));
    await stopChild(mongo);
  };
  let stopRequested: Promise<void> | null = null;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      log(`${signal}: stopping every process`);
      stopRequested ??= stopAll().then(() => process.exit(0));
    });
  }

  try {
    const started = env.MONGO_URL ? null : await startMongo({ ...env, DATA_DIR: dataDir }, () => stopping);
    mongo = started?.proc ?? null;
    const mongoUrl = env.MONGO_URL ?? started!.url;
    let mongoPid: number | null = mongo?.pid ?? null;
    // The database too is restarted when it dies (on its own port, from its journal), as a
    // StatefulSet's pod would be; the services reconnect to it.
    const superviseMongo = (proc: ChildProcess, restarts: number) =>
      void exited(proc).then(async (code) => {
        if (stopping || mongo !== proc) return;
        const delay = restartDelay(restarts);
        log('the embedded MongoDB server exited; restarting', { process: 'mongodb', code, signal: proc.signalCode, delayMs: delay });
        await new Promise((r) => setTimeout(r, delay));
        if (stopping) return;
        const again = await startMongo({ ...env, DATA_DIR: dataDir }, () => stopping, [Number(new URL(mongoUrl).port)]).catch((err: Error) => {
          log('the embedded MongoDB server did not restart', { err: err.message });
          return null;
        });
        if (!again) return;
        mongo = again.proc;
        mongoPid = again.proc.pid ?? null;
        writeProcesses(dataDir, children, baseUrl, mongoPid);
        superviseMongo(again.proc, restarts + 1);
      });
    if (mongo) superviseMongo(mongo, 0);

    // Ports first, so every process knows the others' URLs when it starts (none waits for another).
    const gatewayPort = env.PORT || (await freePort(env.HOST));
    const servicePort = new Map<string, number>();
    for (const s of SERVICES) servicePort.set(s.name, await freePort(env.HOST));
    // A service of several local replicas: each its own port, behind the service's round-robin one.
    const replicaPorts = new Map<string, number[]>();
    for (const s of SERVICES.filter((e) => e.localProcesses > 1)) {
      const ports: number[] = [];
      for (let i = 0; i < s.localProcesses; i++) ports.push(await freePort(env.HOST));
      replicaPorts.set(s.name, ports);
    }
    const url = (name: string) => `http://${env.HOST}:${servicePort.get(name)}`;
    const baseUrl = `http://${env.HOST}:${gatewayPort}`;

    // The key of secrets at rest: the processes that keep secrets read it (docs/adr/0067); kept in DATA_DIR like the data it opens.
    const secretsKey = await ensureSecretsKey(dataDir, env.SECRETS_KEY);
    const inherited: NodeJS.ProcessEnv = {
      ...process.env, NODE_ENV: env.NODE_ENV, INTERNAL_TOKEN_SECRET: env.INTERNAL_TOKEN_SECRET, SECRETS_KEY: secretsKey, AMQP_URL: env.AMQP_URL, REDIS_URL: env.REDIS_URL, HOST: env.HOST, DATA_DIR: dataDir,
    };
    // The production topology never runs on stand-ins; each process's database is the launcher's choice.
    delete inherited.HELPDESK_EMBEDDED;
    delete inherited.MONGO_DB;
    children.push(...(await planChildren(env, { mongoUrl, gatewayPort, servicePort, replicaPorts, url, baseUrl, inherited })));
    for (const s of SERVICES.filter((e) => e.localProcesses > 1)) {
      const ports = children.filter((c) => c.entry === s).map((c) => c.port);
      balancers.push(await startBalancer(env.HOST, servicePort.get(s.name)!, () => ports));
    }

    // Services in parallel (none needs another to start), then the gateway.
    const launch = (c: Child) => {
      c.tail = [];
      c.proc = spawnNode([c.entry.entry], c.env, c.tail);
      const proc = c.proc;
      void exited(proc).then((code) => {
        if (stopping || c.proc !== proc) return;
        const delay = restartDelay(c.restarts);
        c.restarts++;
        log(`${c.entry.name} exited; restarting`, { process: c.entry.name, replica: c.replica, code, signal: proc.signalCode, delayMs: delay });
        setTimeout(() => {
          if (stopping) return;
          launch(c);
          writeProcesses(dataDir, children, baseUrl, mongoPid);
        }, delay).unref();
      });
    };
    const readyz = (c: Child) => ready(`http://${env.HOST}:${c.port}/readyz`, c.proc!, `${c.entry.name}${c.entry.localProcesses > 1 ? ` (replica ${c.replica})` : ''}`, c.tail);
    const services = children.filter((c) => c.entry.kind === 'service');
    services.forEach(launch);
    await Promise.all(services.map(readyz));
    const gateways = children.filter((c) => c.entry.kind === 'gateway');
    gateways.forEach(launch);
    await Promise.all(gateways.map(readyz));
    if (stopping) return;

    writeProcesses(dataDir, children, baseUrl, mongoPid);
    await announce(env, { dataDir, mongoUrl, baseUrl, workspaceUrl: url('workspace') });
  } catch (err) {
    if (stopping) return;
    await stopAll();
    throw err;
  }
}

/** Where the processes find each other: the database, the gateway's port and address, each service's URL. */
interface Topology {
  mongoUrl: string;
  gatewayPort: number;
  servicePort: Map<string, number>;
  /** The replicas' own ports of a service with several local processes. */
  replicaPorts: Map<string, number[]>;
  url: (service: string) => string;
  baseUrl: string;
  /** The environment every process gets. */
  inherited: NodeJS.ProcessEnv;
}

/** Every process of the registry, each replica with its own ports and environment (not started yet). */
async function planChildren(env: Env, topology: Topology): Promise<Child[]> {
  const children: Child[] = [];
  for (const entry of PROCESSES) {
    const replicas = entry.localProcesses;
    for (let replica = 1; replica <= replicas; replica++) {
      const port = entry.kind === 'gateway' ? topology.gatewayPort : replicas > 1 ? topology.replicaPorts.get(entry.name)![replica - 1]! : topology.servicePort.get(entry.name)!;
      const own = ownEnv(env, entry, topology, port, await freePort(env.HOST));
      children.push({ entry, replica, port, metricsPort: Number(own.METRICS_PORT), env: { ...topology.inherited, ...own }, proc: null, restarts: 0, tail: [] });
    }
  }
  return children;
}

/** What the launcher decides for one process, from its registry entry. */
function ownEnv(env: Env, entry: ProcessEntry, topology: Topology, port: number, metricsPort: number): NodeJS.ProcessEnv {
  const own: NodeJS.ProcessEnv = {
    ...databaseEnv(env, topology.mongoUrl, entry.name),
    PORT: String(port),
    METRICS_PORT: String(metricsPort),
    OTEL_SERVICE_NAME: process.env.OTEL_SERVICE_NAME ? `${process.env.OTEL_SERVICE_NAME}-${entry.name}` : entry.name,
  };
  for (const call of entry.calls) own[call.env] = topology.url(call.service);
  if (entry.kind === 'gateway') {
    own.SERVICE_URLS = gatewayServiceUrls(
      SERVICES.map((s) => s.name),
      topology.url,
      (name) => topology.replicaPorts.get(name)?.map((port) => `http://${env.HOST}:${port}`),
    );
  }
  // Its other listeners on this machine's HOST, on the launcher's port for them (its default otherwise).
  for (const extra of entry.extraPorts) {
    own[extra.env] = String((env as Record<string, unknown>)[extra.env] ?? extra.port);
    if (extra.hostEnv) own[extra.hostEnv] = env.HOST;
  }
  // Links in mail and redirects point at this gateway unless set.
  for (const [variable, page] of Object.entries(entry.gatewayLinks)) own[variable] = process.env[variable] || `${topology.baseUrl}${page}`;
  return own;
}

/** The owner's credentials (made on the first start), DATA_DIR/credentials.json and the banner. */
async function announce(env: Env, where: { dataDir: string; mongoUrl: string; baseUrl: string; workspaceUrl: string }): Promise<void> {
  const { dataDir, mongoUrl, baseUrl } = where;
  const tokens = new InternalTokens(env.INTERNAL_TOKEN_SECRET);
  const gatewayDb = databaseEnv(env, mongoUrl, 'gateway');
  const admin = await createGatewayAdmin(gatewayDb.MONGO_URL, 'gateway', workspaceLink(where.workspaceUrl, tokens));
  const { credentials, created, file } = await ensureDevCredentials(admin, dataDir, { baseUrl: `${baseUrl}/api/v1`, mongoUrl });
  const signInRow = await ownerSignInRow(admin, credentials);
  await admin.close();
  const count = (e: ProcessEntry) => (e.localProcesses > 1 ? ` ×${e.localProcesses}` : '');
  process.stdout.write(
    banner({
      title: 'Helpdesk platform: separate processes',
      credentials,
      created,
      file,
      details: [
        signInRow,
        ['MongoDB', `${mongoUrl}${env.MONGO_URL ? '' : ` (embedded server process, journal in ${path.join(env.DATA_DIR, 'mongo')})`}`],
        ['bus', `RabbitMQ (${redact(env.AMQP_URL)}); Redis (${redact(env.REDIS_URL)})`],
        ['processes', `${PROCESSES.map((p) => `${p.name}${count(p)}`).join(', ')} (pids, URLs and metrics in ${path.join(env.DATA_DIR, 'processes.json')})`],
        ['inbound', `SMTP ${env.HOST}:${env.INBOUND_SMTP_PORT}, webhook http://${env.HOST}:${env.INBOUND_HTTP_PORT}/inbound-email/{teamId}/messages`],
      ],
      baseUrl: `${baseUrl}/api/v1`,
    }),
  );
}

/** A URL without its password, for the banner. */
const redact = (u: string) => {
  const url = new URL(u);
  if (url.password) url.password = '***';
  return url.toString().replace(/\/$/, '');
};

function writeProcesses(dataDir: string, children: Child[], baseUrl: string, mongoPid: number | null): void {
  const list = children.map((c) => ({ name: c.entry.name, replica: c.replica, pid: c.proc?.pid ?? null, url: `${new URL(baseUrl).protocol}//${new URL(baseUrl).hostname}:${c.port}`, metricsUrl: `${new URL(baseUrl).protocol}//${new URL(baseUrl).hostname}:${c.metricsPort}/metrics`, restarts: c.restarts }));
  // Written whole, then renamed over the old one: a reader (a test, the chaos run) never sees half a file.
  const file = path.join(dataDir, 'processes.json');
  writeFileSync(`${file}.tmp`, JSON.stringify({ baseUrl: `${baseUrl}/api/v1`, mongodb: mongoPid === null ? null : { pid: mongoPid }, processes: list }, null, 2) + '\n');
  renameSync(`${file}.tmp`, file);
}

/** SIGTERM, then SIGKILL after 20 s (a graceful stop drains requests and consumers first). */
async function stopChild(proc: ChildProcess | null): Promise<void> {
  if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
  proc.kill('SIGTERM');
  const timer = setTimeout(() => proc.kill('SIGKILL'), 20_000);
  await exited(proc);
  clearTimeout(timer);
}

main().catch((err) => {
  console.error(err instanceof ConfigError ? `start:processes: ${err.message}` : err);
  process.exit(1);
});
