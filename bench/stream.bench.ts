/**
 * Event stream benchmark (not a test). In one run, on loopback, the platform started exactly as
 * `npm start` starts it (embedded defaults, one process: gateway, services, in-process bus) and,
 * as the baseline, a raw node:http SSE hello-world (bench/sse-hello-server.ts), each in its own
 * child process:
 *  1. held streams: `--streams` (5,000) concurrent streams opened through the gateway (the owner's
 *     live secret key), and as many on the hello-world; the server process's resident memory before
 *     and with them open, per stream;
 *  2. delivery: `--receivers` (1,000) of those streams, kept open, receiving `--rate` (20) events a second each for
 *     `--seconds` (30): tickets created through the gateway at that rate, every stream subscribed
 *     to `ticket.created`. Latency = the moment the client has the frame − the event's `createdAt`
 *     (`occurredAt`, set in the transaction that commits the ticket); p50/p99; loss = events a
 *     stream never got (must be 0). The hello-world broadcasts the same rate to the same number of
 *     streams, its frames stamped when written.
 * Everything is bounded: a stream that does not open in 60 s, or events that do not arrive within
 * 60 s of the last one, end the run with an error; the whole run stops after 15 minutes.
 *
 * `--shape processes` runs the platform as `npm run start:processes` runs it instead (bench/shapes.ts:
 * the gateway, every service and MongoDB as separate processes, RabbitMQ and Redis from
 * AMQP_URL/REDIS_URL, default loopback, with this run's own names): the notifications service's
 * `--replicas` (2, the registry's local count; the launcher starts them) each get their own URL in
 * the gateway's SERVICE_URLS, and the gateway spreads its one connection per stream over them itself
 * (docs/adr/0075; in Kubernetes one Service URL, kube-proxy in the kernel): what ships. Held memory
 * is then the gateway's plus every replica's, and each replica's share of the streams (its open
 * sockets) is printed. `--cpu-prof DIR` writes a V8 profile of every process of the platform
 * (bench/cpu-prof-preload.cjs in the processes shape; summarise with bench/profile-summary.ts). The stream log
 * is Redis Streams there (every replica reads every event), the embedded log in one process.
 * The machine's load average is printed with the figures.
 *
 *   ulimit -n $(ulimit -Hn)
 *   npx tsx bench/stream.bench.ts [--streams 5000] [--receivers 1000] [--rate 20] [--seconds 30] [--shape one|processes] [--replicas 2] [--cpu-prof DIR]
 */
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { request, type ClientRequest } from 'node:http';
import { createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { cpuSeconds, start, stop } from './processes';
import { startProcesses } from './shapes';

const { values } = parseArgs({
  options: {
    streams: { type: 'string', default: '5000' },
    receivers: { type: 'string', default: '1000' },
    rate: { type: 'string', default: '20' },
    seconds: { type: 'string', default: '30' },
    shape: { type: 'string', default: 'one' },
    replicas: { type: 'string', default: '2' },
    'cpu-prof': { type: 'string' },
  },
});
const SHAPE = values.shape as 'one' | 'processes';
if (SHAPE !== 'one' && SHAPE !== 'processes') throw new Error('--shape: one or processes');
const REPLICAS = Number(values.replicas);
const STREAMS = Number(values.streams);
const RECEIVERS = Number(values.receivers);
const RATE = Number(values.rate);
const SECONDS = Number(values.seconds);
const EVENTS = RATE * SECONDS;
const CPU_PROF_DIR = values['cpu-prof'] ? path.resolve(values['cpu-prof']) : undefined;

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
const rssBytes = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;
/** The open sockets of a process (Linux): a replica's held streams, one connection each. */
const socketsOf = (pid: number) => readdirSync(`/proc/${pid}/fd`).filter((fd) => {
  try {
    return readlinkSync(`/proc/${pid}/fd/${fd}`).startsWith('socket:');
  } catch {
    return false;
  }
}).length;
const load = () => loadavg().map((l) => l.toFixed(2)).join(' ');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Per event id, the earliest latency any stream saw: the time to the first client, which is the
 * pipeline up to the stream (commit, outbox, bus, log); the rest, up to the last, is the fan-out.
 */
let firstSeen = new Map<string, number>();

/** One SSE connection read by hand (EventSource would cost the client more than the servers): frames' ids and latencies. */
class Stream {
  readonly ids = new Set<string>();
  readonly latencies: number[] = [];
  private req: ClientRequest;
  private rest = '';
  readonly opened: Promise<void>;

  constructor(url: string, headers: Record<string, string>, idOf: (data: string) => string) {
    let onOpen!: () => void;
    let onFail!: (err: Error) => void;
    this.opened = new Promise((resolve, reject) => ((onOpen = resolve), (onFail = reject)));
    this.req = request(url, { headers: { accept: 'text/event-stream', ...headers }, agent: false }, (res) => {
      if (res.statusCode !== 200) {
        let body = '';
        res.on('data', (c) => (body += c)).on('end', () => onFail(new Error(`stream answered ${res.statusCode}: ${body}`)));
        return;
      }
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        const now = Date.now();
        const frames = (this.rest + chunk).split('\n\n');
        this.rest = frames.pop()!;
        for (const frame of frames) {
          if (frame.startsWith('retry:')) onOpen();
          const at = frame.indexOf('\ndata: ');
          if (at === -1) continue;
          const data = frame.slice(at + 7);
          const c = data.indexOf('"createdAt":"') + 13;
          const latency = now - Date.parse(data.slice(c, data.indexOf('"', c)));
          const id = idOf(data);
          this.latencies.push(latency);
          this.ids.add(id);
          const first = firstSeen.get(id);
          if (first === undefined || latency < first) firstSeen.set(id, latency);
        }
      });
    });
    this.req.on('error', (err) => onFail(err));
    this.req.end();
    setTimeout(() => onFail(new Error('a stream did not open within 60 s')), 60_000).unref();
  }

  close(): void {
    this.req.destroy();
  }
}

/** Opens `n` streams, `batch` at a time (the servers accept a few hundred connections at once). */
async function openStreams(n: number, make: () => Stream, batch = 250): Promise<Stream[]> {
  const streams: Stream[] = [];
  for (let i = 0; i < n; i += batch) {
    const some = Array.from({ length: Math.min(batch, n - i) }, make);
    streams.push(...some);
    await Promise.all(some.map((s) => s.opened));
  }
  return streams;
}

/**
 * Resident memory of `pid` without and with `n` streams held, per stream (the mean of three readings
 * each); then all but `keep` close, and those are handed back (the delivery phase reuses them: every
 * new connection costs loopback ports that stay in TIME_WAIT for a minute).
 */
async function heldStreams(pids: number[], n: number, make: () => Stream, keep: number, whileHeld: () => void = () => {}) {
  const settle = async () => {
    await sleep(2_000);
    let total = 0;
    for (let i = 0; i < 3; i++, await sleep(500)) for (const pid of pids) total += rssBytes(pid);
    return total / 3;
  };
  const before = await settle();
  const streams = await openStreams(n, make);
  const after = await settle();
  whileHeld();
  for (const s of streams.slice(keep)) s.close();
  await sleep(1_000);
  return { held: { before, after, perStream: (after - before) / n }, kept: streams.slice(0, keep) };
}

/** Waits until every stream has `count` events, at most 60 s past the last one sent. */
async function allDelivered(streams: Stream[], count: number): Promise<void> {
  const until = Date.now() + 60_000;
  while (streams.some((s) => s.ids.size < count) && Date.now() < until) await sleep(200);
}

function deliveryFigures(streams: Stream[], expected: number) {
  const latencies = streams.flatMap((s) => s.latencies).sort((a, b) => a - b);
  const lost = streams.reduce((n, s) => n + Math.max(0, expected - s.ids.size), 0);
  const first = [...firstSeen.values()].sort((a, b) => a - b);
  firstSeen = new Map();
  return { frames: latencies.length, p50: pct(latencies, 50), p99: pct(latencies, 99), lost, firstP50: pct(first, 50), firstP99: pct(first, 99) };
}

let retried = 0;
/** A ticket through the gateway; a 503 (a busy single process) is retried: latency counts from the commit, not the request. */
async function createTicket(url: string, headers: Record<string, string>, i: number): Promise<string> {
  for (let attempt = 0; ; attempt++) {
    const res = await fetch(url, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ title: `Stream bench ${i}` }) });
    const body = (await res.json()) as { data: { id: string } };
    if (res.status === 201) return body.data.id;
    if (res.status !== 503 || attempt === 5) throw new Error(`ticket create: ${res.status} ${JSON.stringify(body)}`);
    retried++;
    await sleep(200);
  }
}

/** The platform in the chosen shape: its base URL, a secret key, the pids whose memory counts, and each notifications replica's. */
async function startPlatform(): Promise<{ base: string; key: string; pids: number[]; replicas: number[]; named: { name: string; pid: number }[]; stop: () => Promise<void> }> {
  if (SHAPE === 'processes') {
    const shape = await startProcesses(
      { amqpUrl: process.env.AMQP_URL || 'amqp://guest:guest@127.0.0.1:5672', redisUrl: process.env.REDIS_URL || 'redis://127.0.0.1:6379' },
      // RabbitMQ directly: a counting proxy in this process would wait on the 1,000 streams it reads.
      { logLevel: 'warn', amqpCounter: false, cpuProfDir: CPU_PROF_DIR },
    );
    const procs = shape.processes();
    const gateway = procs.filter((p) => p.name === 'gateway').map((p) => p.pid);
    const replicas = procs.filter((p) => /^notifications(#\d+)?$/.test(p.name)).map((p) => p.pid);
    if (replicas.length !== REPLICAS) {
      await shape.stop();
      throw new Error(`--replicas ${REPLICAS}: the launcher runs ${replicas.length} notifications replicas (the registry's localProcesses)`);
    }
    // The launcher too (local tooling): its round-robin port no longer carries the gateway's streams (docs/adr/0075).
    const named = procs;
    return { base: `${shape.baseUrl}/teams/${shape.teamId}`, key: shape.secretKey, pids: [...gateway, ...replicas], replicas, named, stop: () => shape.stop() };
  }
  const dataDir = mkdtempSync(path.join(tmpdir(), 'helpdesk-stream-bench-'));
  const platform = await start(
    'deploy/local/src/main.ts',
    { PORT: '0', DATA_DIR: dataDir, EMBEDDED_MONGO_PORT: String(await freePort()), LOG_LEVEL: 'warn', RATE_LIMIT_SECRET_PER_MINUTE: '1000000000' },
    /Ready: (\S+)/,
    CPU_PROF_DIR ? ['--cpu-prof', `--cpu-prof-dir=${path.join(CPU_PROF_DIR, 'one')}`] : [],
  );
  const creds = JSON.parse(readFileSync(path.join(dataDir, 'credentials.json'), 'utf8'));
  return {
    base: `${platform.match[1]}/teams/${creds.teamId}`,
    key: creds.keys.sk_live,
    pids: [platform.child.pid!],
    replicas: [],
    named: [{ name: 'platform (all in one)', pid: platform.child.pid! }],
    stop: async () => {
      await stop(platform.child);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function platformRun() {
  const platform = await startPlatform();
  try {
    const { base } = platform;
    const headers = { authorization: `Bearer ${platform.key}` };
    const ticketIdOf = (data: string) => {
      const t = data.indexOf('"ticket":{"id":"') + 16;
      return data.slice(t, data.indexOf('"', t));
    };
    const make = () => new Stream(`${base}/events/stream?types=ticket.created`, headers, ticketIdOf);

    // Each replica's share of the held streams: its open sockets with them held, less before.
    const socketsBefore = platform.replicas.map(socketsOf);
    let spread: number[] = [];
    const { held, kept: receivers } = await heldStreams(platform.pids, STREAMS, make, RECEIVERS, () => {
      spread = platform.replicas.map((pid, i) => socketsOf(pid) - socketsBefore[i]!);
    });
    const cpuBefore = platform.named.map((p) => cpuSeconds([p.pid]));
    const created: string[] = [];
    const t0 = Date.now();
    const posts: Promise<void>[] = [];
    for (let i = 0; i < EVENTS; i++) {
      const wait = t0 + (i * 1000) / RATE - Date.now();
      if (wait > 0) await sleep(wait);
      posts.push(createTicket(`${base}/tickets`, headers, i).then((id) => void created.push(id)));
    }
    await Promise.all(posts);
    await allDelivered(receivers, created.length);
    // CPU seconds each process used from the first ticket to the last frame.
    const cpu = platform.named.map((p, i) => ({ name: p.name, seconds: cpuSeconds([p.pid]) - cpuBefore[i]! }));
    const deliverySeconds = (Date.now() - t0) / 1000;
    for (const r of receivers) r.close();
    return { held, delivery: deliveryFigures(receivers, created.length), spread, cpu, deliverySeconds };
  } finally {
    await platform.stop();
  }
}

async function helloRun() {
  const hello = await start('bench/sse-hello-server.ts', { PORT: '0' }, /listening (\d+)/);
  try {
    const base = `http://127.0.0.1:${hello.match[1]}`;
    const make = () => new Stream(`${base}/stream`, {}, (data) => data.slice(7, data.indexOf('"', 7)));
    const { held, kept: receivers } = await heldStreams([hello.child.pid!], STREAMS, make, RECEIVERS);
    const cpuBefore = cpuSeconds([hello.child.pid!]);
    await fetch(`${base}/broadcast?rate=${RATE}&seconds=${SECONDS}`, { method: 'POST' }).then((r) => r.text());
    await sleep(SECONDS * 1000);
    await allDelivered(receivers, EVENTS);
    const cpu = cpuSeconds([hello.child.pid!]) - cpuBefore;
    for (const r of receivers) r.close();
    return { held, delivery: deliveryFigures(receivers, EVENTS), cpu };
  } finally {
    await stop(hello.child);
  }
}

async function main(): Promise<void> {
  const guard = setTimeout(() => {
    console.error('stream bench: over 15 minutes, stopping');
    process.exit(1);
  }, 15 * 60_000);
  guard.unref();
  const kib = (b: number) => `${(b / 1024).toFixed(1)} KiB`;
  const mib = (b: number) => `${(b / 1024 / 1024).toFixed(0)} MiB`;
  const loads = [load()];
  const hello = await helloRun();
  const platform = await platformRun();
  loads.push(load());
  const shapeName = SHAPE === 'one' ? 'platform, one process' : `platform, processes (${REPLICAS} notifications)`;
  console.log(`shape: ${SHAPE === 'one' ? 'one process (npm start)' : `processes (npm run start:processes: gateway spreading the streams over ${REPLICAS} notifications replicas, RabbitMQ, Redis)`}`);
  console.log(`held streams: ${STREAMS} at once`);
  for (const [name, r] of [['raw SSE hello-world', hello], [shapeName, platform]] as const) {
    console.log(`  ${name.padEnd(36)} rss ${mib(r.held.before)} → ${mib(r.held.after)}: ${kib(r.held.perStream)} per stream`);
  }
  console.log(`  ratio platform / hello-world: ${(platform.held.perStream / hello.held.perStream).toFixed(1)}x per stream`);
  if (SHAPE === 'processes') console.log(`  (the gateway's and every replica's memory; streams held per replica: ${platform.spread.join(', ')})`);
  console.log(`delivery: ${RECEIVERS} streams × ${RATE} events/s × ${SECONDS} s (${EVENTS} events, ${RECEIVERS * EVENTS} frames expected)`);
  for (const [name, r] of [['raw SSE hello-world', hello], [`${shapeName} (commit → client)`, platform]] as const) {
    const d = r.delivery;
    console.log(`  ${name.padEnd(36)} p50 ${d.p50} ms, p99 ${d.p99} ms, ${d.frames} frames, lost ${d.lost}; to the first stream p50 ${d.firstP50} ms, p99 ${d.firstP99} ms`);
  }
  const busiest = [...platform.cpu].sort((a, b) => b.seconds - a.seconds).filter((c) => c.seconds >= 0.5);
  console.log(`  CPU seconds from the first event to the last frame (${platform.deliverySeconds.toFixed(0)} s): ${busiest.map((c) => `${c.name} ${c.seconds.toFixed(1)}`).join(', ')}`);
  // Per frame delivered (load moves it less than latency): the stream path's processes against the hello-world's one.
  const perFrame = (seconds: number, frames: number) => ((seconds * 1e6) / Math.max(1, frames)).toFixed(1);
  const streamPath = platform.cpu.filter((c) => /^(gateway|notifications|launcher)/.test(c.name));
  console.log(`  CPU µs per frame: hello-world ${perFrame(hello.cpu, hello.delivery.frames)}; ${streamPath.map((c) => `${c.name} ${perFrame(c.seconds, platform.delivery.frames)}`).join(', ')}; all platform processes ${perFrame(platform.cpu.reduce((n, c) => n + c.seconds, 0), platform.delivery.frames)}`);
  if (retried) console.log(`  (${retried} ticket creations answered 503 and were retried)`);
  console.log(`  ratio platform / hello-world: p50 ${(platform.delivery.p50 / Math.max(1, hello.delivery.p50)).toFixed(1)}x, p99 ${(platform.delivery.p99 / Math.max(1, hello.delivery.p99)).toFixed(1)}x`);
  console.log(`load average (1, 5, 15 min): ${loads[0]} before, ${loads[1]} after`);
  if (CPU_PROF_DIR) console.log(`profiles: ${CPU_PROF_DIR} (npx tsx bench/profile-summary.ts <files>)`);
  if (platform.delivery.lost > 0) process.exitCode = 1;
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
