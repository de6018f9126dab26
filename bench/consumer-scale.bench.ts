/**
 * Consumer scale-out benchmark (not a test; issue 31 item 7). Shows that a service's consumers scale
 * out: several replicas of one service share its quorum queue, and the queue drains faster.
 *
 * On `npm run start:processes` (bench/shapes.ts: every process separate, RabbitMQ and Redis from
 * AMQP_URL/REDIS_URL, default loopback, this run's own exchange, queues and key prefix), for 1, 2 and
 * 3 replicas of `--service` (default webhooks, the busiest consumer of a ticket create in
 * docs/performance.md's breakdown), one round each:
 *
 *  1. the service's replicas are paused (SIGSTOP), so its queue holds what arrives;
 *  2. `--tickets` tickets are created through the gateway (real `ticket.created` events, published by
 *     ticketing's outbox relay to every bound queue); with `--service webhooks` a webhook subscribed to
 *     `ticket.created` points at a loopback receiver, so each event is real work (a delivery row);
 *  3. once ticketing published them all (the counting proxy in front of RabbitMQ), every replica is resumed (SIGCONT) and the time until the
 *     replicas' `helpdesk_consumer_deliveries_total` (summed over them, as bench/breakdown.ts reads it)
 *     grew by the burst is the drain time. Prints events consumed per second and the ratio to the
 *     1-replica round.
 *
 * Replica 1 is the launcher's; replicas 2 and 3 are started here as the launcher starts that service
 * (its own environment read from /proc/<pid>/environ, with ports of their own), so they share its
 * database, queue and broker. They are not behind the launcher's HTTP port: only their consumers are
 * measured. Linux only (/proc, signals). Everything started here is stopped at the end.
 *
 * On a shared machine the replicas compete with every other process for the same cores: the ratio says
 * how much of the queue's work spreads, not what separate machines would give.
 *
 *   npx tsx bench/consumer-scale.bench.ts [--service webhooks] [--tickets 200] [--replicas 3] [--timeout 120]
 *
 * --service   the consumer to scale (a registry service with one local process: webhooks, game, workspace, …)
 * --tickets   the burst per round (tickets created, so events for the service's queue)
 * --replicas  the highest replica count (rounds 1..N)
 * --timeout   seconds a round may take to fill or drain the queue before the run fails
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { Agent, request } from 'undici';
import { Receiver } from '@helpdesk/testing';
import { freePort } from './processes';
import { startProcesses, type RunningShape } from './shapes';

const { values } = parseArgs({
  options: {
    service: { type: 'string', default: 'webhooks' },
    tickets: { type: 'string', default: '200' },
    replicas: { type: 'string', default: '3' },
    timeout: { type: 'string', default: '120' },
  },
});
const SERVICE = values.service!;
const TICKETS = Number(values.tickets);
const MAX_REPLICAS = Number(values.replicas);
const TIMEOUT_MS = Number(values.timeout) * 1000;
if (!(TICKETS > 0 && TICKETS <= 10_000)) throw new Error('--tickets: 1 to 10000');
if (!(MAX_REPLICAS >= 1 && MAX_REPLICAS <= 6)) throw new Error('--replicas: 1 to 6');
const AMQP_URL = process.env.AMQP_URL || 'amqp://guest:guest@127.0.0.1:5672';
const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
const ROOT = process.env.BENCH_ROOT ? path.resolve(process.env.BENCH_ROOT) : path.resolve(__dirname, '..');
/** As the launcher (and the image) runs a process. */
const NODE_ARGS = ['--require', 'tsx/cjs', '--require', './shared/kit/src/telemetry/register.ts'];

interface Replica {
  pid: number;
  metricsUrl: string;
  /** Set for the replicas started here. */
  child?: ChildProcess;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits (bounded by --timeout) until `check` holds. */
async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + TIMEOUT_MS;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not within ${TIMEOUT_MS / 1000} s: ${what}`);
    await sleep(50);
  }
}

/** The environment a process was started with (Linux). */
function environOf(pid: number): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const pair of readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0')) {
    const at = pair.indexOf('=');
    if (at > 0) env[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return env;
}

/** The service's consumer deliveries so far, summed over its replicas. */
async function consumed(replicas: Replica[]): Promise<number> {
  let total = 0;
  for (const r of replicas) {
    const text = await fetch(r.metricsUrl, { signal: AbortSignal.timeout(5000) }).then((res) => res.text());
    for (const line of text.split('\n')) {
      if (line.startsWith('helpdesk_consumer_deliveries_total{') && /queue="[^"]*\.([^".]+)"/.exec(line)?.[1] === SERVICE) total += Number(line.slice(line.lastIndexOf(' ') + 1));
    }
  }
  return total;
}

/** One more replica of the service, started as the launcher started the first; resolves once it is ready. */
async function addReplica(first: Pick<Replica, 'pid'>): Promise<Replica> {
  const env = environOf(first.pid);
  const [port, metricsPort] = [await freePort(), await freePort()];
  const entry = `services/${SERVICE}/src/main.ts`;
  const child = spawn(process.execPath, [...NODE_ARGS, entry], { cwd: ROOT, env: { ...env, PORT: String(port), METRICS_PORT: String(metricsPort) }, stdio: ['ignore', 'ignore', 'ignore'] });
  const replica = { pid: child.pid!, metricsUrl: `http://127.0.0.1:${metricsPort}/metrics`, child };
  await until(`replica of ${SERVICE} ready`, async () => {
    if (child.exitCode !== null) throw new Error(`a replica of ${SERVICE} exited (${child.exitCode})`);
    return fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(2000) }).then((r) => r.ok, () => false);
  });
  return replica;
}

async function stopReplica(r: Replica): Promise<void> {
  const child = r.child;
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(r.pid, 'SIGCONT');
  } catch {
    /* gone */
  }
  const gone = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  await gone;
  clearTimeout(timer);
}

const signal = (replicas: Replica[], sig: NodeJS.Signals) => replicas.forEach((r) => process.kill(r.pid, sig));

/** Creates `n` tickets through the gateway, 8 at a time. */
async function createTickets(platform: RunningShape, n: number, label: string): Promise<void> {
  const clients = new Agent({ connections: 8 });
  const headers = { authorization: `Bearer ${platform.secretKey}`, 'content-type': 'application/json' };
  let next = 0;
  const creator = async () => {
    while (next < n) {
      const i = ++next;
      const res = await request(`${platform.baseUrl}/teams/${platform.teamId}/tickets`, { method: 'POST', dispatcher: clients, headers, body: JSON.stringify({ title: `${label} ${i}` }) });
      if (res.statusCode !== 201) throw new Error(`ticket create: ${res.statusCode} ${await res.body.text()}`);
      await res.body.dump();
    }
  };
  try {
    await Promise.all(Array.from({ length: 8 }, creator));
  } finally {
    await clients.close();
  }
}

/** `ticket.created` events published to the run's exchange so far (the counting proxy's count). */
const createdPublished = (platform: RunningShape) =>
  [...platform.amqpCounts!().publishesBy].filter(([key]) => key.endsWith(' ticket.created')).reduce((sum, [, n]) => sum + n, 0);

/** One round: pause, fill the queue with a burst, resume, time the drain. Events consumed per second. */
async function round(platform: RunningShape, replicas: Replica[]): Promise<{ perSecond: number; seconds: number }> {
  const before = await consumed(replicas);
  const published = createdPublished(platform);
  signal(replicas, 'SIGSTOP');
  try {
    await createTickets(platform, TICKETS, `Scale ${replicas.length}`);
    // Published with confirms, so routed to the service's queue; the other consumers settle meanwhile.
    await until(`${TICKETS} ticket.created published`, async () => createdPublished(platform) - published >= TICKETS);
    await sleep(1000);
  } finally {
    signal(replicas, 'SIGCONT');
  }
  const t0 = performance.now();
  await until(`${SERVICE} to consume ${TICKETS} events`, async () => (await consumed(replicas)) - before >= TICKETS);
  const seconds = (performance.now() - t0) / 1000;
  return { perSecond: TICKETS / seconds, seconds };
}

async function main(): Promise<void> {
  const loads = [loadavg()];
  const rx = SERVICE === 'webhooks' ? await Receiver.start() : null;
  const platform = await startProcesses({ amqpUrl: AMQP_URL, redisUrl: REDIS_URL }, { env: { WEBHOOKS_ALLOW_LOOPBACK: 'true' }, logLevel: 'warn' });
  const replicas: Replica[] = [];
  try {
    const running = platform.processes().filter((p) => p.name === SERVICE);
    if (running.length !== 1) throw new Error(`--service ${SERVICE}: needs a service the launcher runs once (found ${running.length})`);
    const first = running[0]!;
    const own = environOf(first.pid);
    const metricsUrl = `http://127.0.0.1:${own.METRICS_PORT}/metrics`;
    replicas.push({ pid: first.pid, metricsUrl });
    if (rx) {
      const headers = { authorization: `Bearer ${platform.secretKey}`, 'content-type': 'application/json' };
      const hook = await fetch(`${platform.baseUrl}/teams/${platform.teamId}/webhooks`, { method: 'POST', headers, body: JSON.stringify({ name: 'scale', url: rx.url('/hook'), events: 'ticket.created' }) });
      if (hook.status !== 201) throw new Error(`webhook create: ${hook.status} ${await hook.text()}`);
    }
    // Warm-up: the code paths compiled and every pool open before anything is timed.
    const warm = await consumed(replicas);
    await createTickets(platform, Math.min(50, TICKETS), 'Warm-up');
    await until('the warm-up consumed', async () => (await consumed(replicas)) - warm >= Math.min(50, TICKETS));

    const rows: Array<{ replicas: number; perSecond: number; seconds: number }> = [];
    for (let n = 1; n <= MAX_REPLICAS; n++) {
      while (replicas.length < n) replicas.push(await addReplica(first));
      rows.push({ replicas: n, ...(await round(platform, replicas)) });
      console.error(`${n} replica(s): ${rows[rows.length - 1]!.perSecond.toFixed(1)} events/s`);
    }
    loads.push(loadavg());
    const load = loads.map((l) => l.map((x) => x.toFixed(2)).join(' ')).join(' -> ');
    console.log(`\n${SERVICE}: a burst of ${TICKETS} ticket.created events per round, npm run start:processes (RabbitMQ quorum queue, every process separate); load average (1, 5, 15 min) ${load}\n`);
    console.log('replicas'.padEnd(10) + 'drain s'.padStart(10) + 'events/s'.padStart(12) + '× 1 replica'.padStart(14));
    for (const r of rows) console.log(String(r.replicas).padEnd(10) + r.seconds.toFixed(2).padStart(10) + r.perSecond.toFixed(1).padStart(12) + (r.perSecond / rows[0]!.perSecond).toFixed(2).padStart(14));
  } finally {
    for (const r of replicas) await stopReplica(r);
    await platform.stop();
    await rx?.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
