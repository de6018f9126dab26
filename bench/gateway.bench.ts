/**
 * Gateway benchmark (not a test). In one run, on loopback: an express hello-world baseline, then
 * every row below through the gateway, in two shapes of the platform (bench/shapes.ts): one process
 * as `npm start` runs it, and `npm run start:processes` (MongoDB, each service and the gateway as
 * separate processes over TCP, RabbitMQ and Redis). Prints req/s, p50/p99 latency, and each figure
 * as a ratio of the baseline's req/s; then where the time goes (ADR 0061), per shape and row:
 *
 * - CPU per request of each process (gateway, each service, the MongoDB server; /proc utime+stime)
 *   over the load window and until the platform is idle again, and each process's CPU at idle (a
 *   quiet 5 s window before the rows);
 * - the counts that carry over to a real MongoDB and RabbitMQ unchanged, per request until idle (the
 *   consumers' work included), less what the idle platform does meanwhile: store commands (the
 *   embedded server's own count), broker publishes and deliveries (a counting proxy in front of
 *   RabbitMQ), and the deliveries the consumers handled (their metrics; both shapes).
 *
 * Targets (issue 31; same-run ratios): one process GET /tickets/{id} >= 15 % of the baseline,
 * POST /tickets >= 8 %, the list >= 12 %; processes GET >= 15 %, list >= 12 %, POST messages >= 5 %,
 * POST /tickets >= 5 % with <= 4 ms CPU per request to idle; p99 at most 4x p50 in every row.
 *
 *   npx tsx bench/gateway.bench.ts [--duration 10] [--connections 50] [--shape one|processes|both]
 *        [--only get,list,message,post] [--idle-seconds 5] [--by-command] [--cpu-prof DIR]
 *
 * `--by-command` (processes shape): MongoDB through a counting proxy (bench/mongo-counter.ts), which
 * names each store command by database, command and collection; the proxy costs CPU on the benchmark's side, so
 * such a run is for the counts, not the timings.
 * `--cpu-prof DIR` writes V8 CPU profiles of the platform's processes under DIR (summarise them with
 * bench/profile-summary.ts; DIR/processes/pids.json names the processes shape's files' pids);
 * `--only` runs some rows (profiles of one kind of request).
 */
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { delta, Probe, settle, type Delta } from './breakdown';
import { cpuSeconds, start, stop } from './processes';
import { startOneProcess, startProcesses, type RunningShape, type ShapeProcess } from './shapes';

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '50' },
    shape: { type: 'string', default: 'both' },
    only: { type: 'string', default: 'get,list,message,post' },
    'idle-seconds': { type: 'string', default: '5' },
    'by-command': { type: 'boolean', default: false },
    'cpu-prof': { type: 'string' },
  },
});
const duration = Number(values.duration);
const connections = Number(values.connections);
const idleSeconds = Number(values['idle-seconds']);
const only = new Set(values.only.split(','));
/** The warm-up run that sets each row's number of requests. */
const WARM_UP_SECONDS = 2;
const shapes = values.shape === 'both' ? ['one', 'processes'] : [values.shape === 'multi' ? 'processes' : values.shape];
const AMQP_URL = process.env.AMQP_URL || 'amqp://guest:guest@127.0.0.1:5672';
const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';

/** Tickets in the team for the list row (half of them open). */
const LIST_TICKETS = 1_000;
const ROWS = { get: 'GET /tickets/{id}', list: 'GET /tickets?status=open&pageSize=20', message: 'POST /tickets/{id}/messages', post: 'POST /tickets' } as const;
const SHORT: Record<string, string> = { [ROWS.get]: 'GET by id', [ROWS.list]: 'list', [ROWS.message]: 'POST msg', [ROWS.post]: 'POST ticket' };

/**
 * `cpuMs`: CPU time the server's processes spent per request while the row ran (all of them, all threads);
 * `idleCpuMs`: the same until they were idle again, so work the requests left behind (events still to
 * consume) counts too: a platform that defers its consumers looks cheap in the first and not in the second.
 */
interface Figure {
  shape: string;
  name: string;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  /** Sent and answered (none is left in flight: the run ends with its last answer). */
  requests: number;
  /** How long the measured run took. */
  seconds: number;
  cpuMs: number;
  idleCpuMs: number;
  /** Over the load window, and from its start until idle (per process, all counts). */
  load?: Delta;
  toIdle?: Delta;
}

/** A shape's idle: CPU per process as a share of a core, and what the counters do per second. */
interface Idle {
  cores: number;
  window: Delta;
}

const loads: string[] = [];
const sampleLoad = () => loads.push(loadavg().map((l) => l.toFixed(2)).join(' '));

/**
 * Loads one row. Waits for an idle platform first, reads every counter before and after the load
 * window and again once the platform is idle: on a shared machine req/s move with the neighbours'
 * load, the CPU and the counts per request much less.
 */
async function load(shape: string, name: string, probe: Probe | null, pids: number[], idleCores: number, opts: autocannon.Options): Promise<Figure> {
  const platformCpu = () => (probe ? probe.platformCpu() : cpuSeconds(pids));
  const quiet = () => (probe ? settle(probe, idleCores) : settleCpu(pids));
  // A short run for the rate, then the measured one with that many requests as `--duration` takes
  // (autocannon's `amount`): it ends once every request is answered, so nothing is left in flight
  // and every figure is per request the platform completed.
  await quiet();
  const warm = await autocannon({ connections, duration: WARM_UP_SECONDS, ...opts });
  const amount = Math.max(connections * 4, Math.round((warm.requests.total / WARM_UP_SECONDS) * duration));
  await quiet();
  const s0 = probe && (await probe.snapshot());
  const own0 = probe?.ownCommands ?? 0;
  const cpu0 = platformCpu();
  const t0 = performance.now();
  const result = await autocannon({ connections, amount, ...opts });
  const seconds = (performance.now() - t0) / 1000;
  const cpu1 = platformCpu();
  const s1 = probe && (await probe.snapshot());
  const own1 = probe?.ownCommands ?? 0;
  sampleLoad();
  await quiet();
  const cpu2 = platformCpu();
  const s2 = probe && (await probe.snapshot());
  const requests = Math.max(result.requests.total, 1);
  return {
    shape,
    name,
    rps: requests / seconds,
    seconds,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx + result.errors,
    requests,
    cpuMs: ((cpu1 - cpu0) * 1000) / requests,
    idleCpuMs: ((cpu2 - cpu0) * 1000) / requests,
    load: s0 && s1 ? delta(s0, s1, own1 - own0) : undefined,
    toIdle: s0 && s2 ? delta(s0, s2, (probe?.ownCommands ?? 0) - own0) : undefined,
  };
}

/** The baseline's settle: its own process under 10 % of a core over half a second (at most 30 s). */
async function settleCpu(pids: number[]): Promise<void> {
  const until = Date.now() + 30_000;
  while (Date.now() < until) {
    const c0 = cpuSeconds(pids);
    await new Promise((r) => setTimeout(r, 500));
    if (!((cpuSeconds(pids) - c0) / 0.5 >= 0.1)) return;
  }
}

/** Runs `fn` over `items` with `width` at a time. */
async function inParallel<T>(items: T[], width: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await fn(items[next++]!);
    }),
  );
}

async function rows(shapeName: string, p: RunningShape): Promise<{ figures: Figure[]; idle: Idle; probe: Probe; processes: ShapeProcess[] }> {
  const base = `${p.baseUrl}/teams/${p.teamId}`;
  const headers = { authorization: `Bearer ${p.secretKey}`, 'content-type': 'application/json' };
  const post = async (url: string, body: unknown, method = 'POST') => {
    const res = await fetch(url, { method, headers, body: JSON.stringify(body) });
    if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`);
    return ((await res.json()) as { data: { id: string } }).data;
  };
  const probe = await Probe.open(p);
  const ids: string[] = [];
  // Only what the chosen rows need: a profile of GETs should not be one of seeding writes.
  const seeded = only.has('list') || only.has('message') ? LIST_TICKETS : 1;
  await inParallel(Array.from({ length: seeded }, (_, i) => i), 16, async (i) => {
    const t = await post(`${base}/tickets`, { title: `Seeded ticket ${i}`, messages: [{ sender: 'customer', content: `hello ${i}` }] });
    if (i % 2 === 0) await post(`${base}/tickets/${t.id}`, { status: 'open' }, 'PATCH');
    ids.push(t.id);
  });

  // Idle: once the seeding's events are consumed (a generous bound: the idle rate is not known yet).
  await settle(probe, Math.max(0.1, 0.03 * probe.platform().length), 60_000);
  const i0 = await probe.snapshot();
  const own0 = probe.ownCommands;
  await new Promise((r) => setTimeout(r, idleSeconds * 1000));
  const i1 = await probe.snapshot();
  const window = delta(i0, i1, probe.ownCommands - own0);
  const platformNames = new Set(probe.platform().map((x) => x.name));
  const idle: Idle = { cores: [...window.cpu].filter(([n]) => platformNames.has(n)).reduce((a, [, v]) => a + v, 0) / window.seconds, window };

  const figures: Figure[] = [];
  const pids = probe.platform().map((x) => x.pid);
  const path = (url: string) => new URL(url).pathname;
  const row = (name: string, opts: autocannon.Options) => load(shapeName, name, probe, pids, idle.cores, opts);
  if (only.has('get')) figures.push(await row(ROWS.get, { url: `${base}/tickets/${ids[0]}`, headers }));
  if (only.has('list')) figures.push(await row(ROWS.list, { url: `${base}/tickets?status=open&pageSize=20`, headers }));
  if (only.has('message')) {
    // Spread over the seeded tickets: one ticket taking every message would measure its write conflicts.
    let n = 0;
    const message = JSON.stringify({ content: 'y'.repeat(400), sender: 'agent' });
    figures.push(
      await row(ROWS.message, {
        url: base,
        requests: [{ method: 'POST', headers, body: message, setupRequest: (r) => ({ ...r, path: `${path(base)}/tickets/${ids[n++ % ids.length]}/messages` }) }],
      }),
    );
  }
  if (only.has('post')) {
    const body = JSON.stringify({ title: 'Load test ticket', priority: 'high', tags: ['bench'], messages: [{ sender: 'customer', content: 'x'.repeat(800) }] });
    figures.push(await row(ROWS.post, { url: `${base}/tickets`, method: 'POST', headers, body }));
  }
  return { figures, idle, probe, processes: probe.all() };
}

const f1 = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : 'n/a');
const f2 = (n: number) => (Number.isFinite(n) ? n.toFixed(2) : 'n/a');
const f3 = (n: number) => (Number.isFinite(n) ? n.toFixed(3) : 'n/a');
const sum = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);

/** A table: first column left-aligned, the others right-aligned. */
function table(head: string[], body: string[][], firstWidth = 26, width = 26): string {
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(firstWidth) : c.padStart(width))).join('');
  return [line(head), ...body.map(line)].join('\n');
}

/** Per request until idle, less what the idle platform does over as long (never below 0). */
function netPerRequest(value: number, idlePerSecond: number, f: Figure): number {
  return Math.max(0, value - idlePerSecond * f.toIdle!.seconds) / f.requests;
}

function printBreakdown(title: string, figures: Figure[], idle: Idle, processes: ShapeProcess[], amqp: boolean): void {
  const names = [...new Set(processes.map((p) => p.name))];
  const tooling = new Set(processes.filter((p) => p.tooling).map((p) => p.name));
  const head = ['process', ...figures.map((f) => `${SHORT[f.name]} load/idle/net`), 'idle % core'];
  const platformNames = names.filter((n) => !tooling.has(n));
  const idleRate = (n: string) => (idle.window.cpu.get(n) ?? NaN) / idle.window.seconds;
  const cell = (f: Figure, load: number, toIdle: number, idleCores: number) =>
    `${f2((load * 1000) / f.requests)} / ${f2((toIdle * 1000) / f.requests)} / ${f2(((toIdle - idleCores * f.toIdle!.seconds) * 1000) / f.requests)}`;
  const cpuRow = (n: string) => [n, ...figures.map((f) => cell(f, f.load!.cpu.get(n) ?? NaN, f.toIdle!.cpu.get(n) ?? NaN, idleRate(n))), f1(idleRate(n) * 100)];
  const total = (d: Delta) => platformNames.reduce((a, n) => a + (d.cpu.get(n) ?? 0), 0);
  console.log(`\n${title}: CPU ms per request by process: over the load window / until idle again / that less the process's idle CPU over as long; and at idle (% of one core)\n`);
  console.log(
    table(head, [
      ...platformNames.map(cpuRow),
      ['total', ...figures.map((f) => cell(f, total(f.load!), total(f.toIdle!), idle.cores)), f1(idle.cores * 100)],
      ...[...tooling].map(cpuRow).map((r) => [`${r[0]} *`, ...r.slice(1)]),
    ]),
  );
  if (tooling.size) console.log('(* tooling of the local run, not deployed: not in the total)');

  const w = idle.window;
  const perSecond = (n: number) => n / w.seconds;
  console.log(`\n${title}: counts per request until idle, less the idle platform's over as long (idle: per second)\n`);
  const countRows: string[][] = [
    ['store commands', ...figures.map((f) => f1(netPerRequest(f.toIdle!.commands, perSecond(w.commands), f))), f1(perSecond(w.commands))],
  ];
  if (amqp) {
    countRows.push(['broker publishes', ...figures.map((f) => f2(netPerRequest(f.toIdle!.amqp.publishes, perSecond(w.amqp.publishes), f))), f1(perSecond(w.amqp.publishes))]);
    countRows.push(['broker deliveries', ...figures.map((f) => f2(netPerRequest(f.toIdle!.amqp.deliveries, perSecond(w.amqp.deliveries), f))), f1(perSecond(w.amqp.deliveries))]);
    countRows.push(['broker acks + nacks', ...figures.map((f) => f2(netPerRequest(f.toIdle!.amqp.acks + f.toIdle!.amqp.nacks, perSecond(w.amqp.acks + w.amqp.nacks), f))), f1(perSecond(w.amqp.acks + w.amqp.nacks))]);
  }
  countRows.push([amqp ? 'consumer deliveries' : 'bus deliveries (in-process)', ...figures.map((f) => f2(netPerRequest(sum(f.toIdle!.consumed), perSecond(sum(w.consumed)), f))), f1(perSecond(sum(w.consumed)))]);
  console.log(table(['count', ...figures.map((f) => SHORT[f.name]!), 'idle /s'], countRows));
  if (w.byCommand.size) {
    const top = [...w.byCommand].sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k} ${f1(v / w.seconds)}`).join(', ');
    console.log(`idle: store commands per second by database, command and collection: ${top}`);
  }
  for (const f of figures) {
    const per = (m: Map<string, number>) =>
      [...m]
        .filter(([, v]) => v / f.requests >= 0.01)
        .sort((a, b) => b[1] - a[1])
        .map(([k, v]) => `${k.replace(/^\S+\.events(\.dlx)? /, (_m, dlx) => (dlx ? 'dlx ' : ''))} ${f2(v / f.requests)}`)
        .join(', ') || 'none';
    const lines = [`  consumed by queue: ${per(f.toIdle!.consumed)}`];
    if (amqp) lines.unshift(`  published by routing key: ${per(f.toIdle!.amqp.publishesBy)}`);
    if (f.toIdle!.byCommand.size) {
      // Net of what the idle platform sends over as long, command by command.
      const net = new Map([...f.toIdle!.byCommand].map(([k, v]) => [k, v - ((idle.window.byCommand.get(k) ?? 0) / idle.window.seconds) * f.toIdle!.seconds] as [string, number]));
      lines.push(`  store commands by database, command and collection, net of idle (${f2(sum(net) / f.requests)} in all): ${per(net)}`);
    }
    console.log(`${SHORT[f.name]} (${f.requests} requests in ${f1(f.seconds)} s; until idle, not net of idle unless said):\n${lines.join('\n')}`);
  }
  const hits = figures.filter((f) => f.toIdle!.commands < 0);
  if (hits.length) console.log('(a negative command count: the server restarted during the row)');
}

async function main(): Promise<void> {
  const figures: Figure[] = [];
  sampleLoad();
  const hello = await start('bench/hello-server.ts', { PORT: '0' }, /listening (\d+)/);
  figures.push(await load('-', 'express hello-world (baseline)', null, [hello.child.pid!], 0, { url: `http://127.0.0.1:${hello.match[1]}/` }));
  await stop(hello.child);
  const prof = values['cpu-prof'];
  const breakdowns: Array<{ title: string; figures: Figure[]; idle: Idle; processes: ShapeProcess[]; amqp: boolean }> = [];

  for (const name of shapes) {
    const shape = name === 'one' ? await startOneProcess({ cpuProfDir: prof && `${prof}/one` }) : await startProcesses({ amqpUrl: AMQP_URL, redisUrl: REDIS_URL }, { cpuProfDir: prof, byCommand: values['by-command'] });
    const title = name === 'one' ? 'one process' : 'processes';
    try {
      const r = await rows(title, shape);
      figures.push(...r.figures);
      breakdowns.push({ title, ...r, amqp: !!shape.amqpCounts });
      await r.probe.close();
    } finally {
      await shape.stop();
    }
  }

  const baseline = figures[0]!.rps;
  console.log(`\nconnections ${connections}, ${duration} s each, loopback; load average (1, 5, 15 min) at the start and after each row: ${loads.join(' | ')}\n`);
  const baseCpu = figures[0]!.cpuMs;
  console.log(
    'shape'.padEnd(12) + 'what'.padEnd(38) + 'req/s'.padStart(8) + 'p50 ms'.padStart(8) + 'p99 ms'.padStart(8) + 'p99/p50'.padStart(9) +
      'of baseline'.padStart(13) + 'CPU ms/req'.padStart(12) + 'x baseline'.padStart(12) + 'to idle'.padStart(9) + 'non-2xx'.padStart(9),
  );
  for (const f of figures) {
    console.log(
      f.shape.padEnd(12) + f.name.padEnd(38) + f.rps.toFixed(0).padStart(8) + String(f.p50).padStart(8) + String(f.p99).padStart(8) +
        (f.p99 / Math.max(f.p50, 1)).toFixed(1).padStart(9) + `${((f.rps / baseline) * 100).toFixed(1)} %`.padStart(13) +
        f3(f.cpuMs).padStart(12) + (f.cpuMs / baseCpu).toFixed(1).padStart(12) + f3(f.idleCpuMs).padStart(9) + String(f.non2xx).padStart(9),
    );
  }
  console.log('\n(CPU ms/req: CPU time of all the platform\'s processes per request while the row ran; "x baseline": that over the baseline\'s; "to idle": CPU ms/req until the platform was idle again, the events the requests left behind included. Each row sends as many requests as --duration seconds take at the rate of a short warm-up run, and ends with the last answer.)');

  for (const b of breakdowns) printBreakdown(b.title, b.figures, b.idle, b.processes, b.amqp);

  const targets: Array<[string, string, number, number?]> = [
    ['one process', ROWS.get, 0.15],
    ['one process', ROWS.post, 0.08],
    ['one process', ROWS.list, 0.12],
    ['processes', ROWS.get, 0.15],
    ['processes', ROWS.list, 0.12],
    ['processes', ROWS.message, 0.05],
    ['processes', ROWS.post, 0.05, 4],
  ];
  console.log('\ntargets (issue 31):');
  for (const [shape, name, target, maxCpuMs] of targets) {
    const f = figures.find((x) => x.shape === shape && x.name === name);
    if (!f) continue;
    const ratio = f.rps / baseline;
    const tail = f.p99 / Math.max(f.p50, 1);
    const cpu = maxCpuMs === undefined ? '' : `; CPU to idle ${f.idleCpuMs.toFixed(1)} ms (target <= ${maxCpuMs}) ${f.idleCpuMs <= maxCpuMs ? 'met' : 'MISSED'}`;
    console.log(`${shape.padEnd(12)} ${name}: ${(ratio * 100).toFixed(1)} % (target >= ${target * 100} %) ${ratio >= target ? 'met' : 'MISSED'}; p99/p50 ${tail.toFixed(1)} (target <= 4) ${tail <= 4 ? 'met' : 'MISSED'}${cpu}`);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
