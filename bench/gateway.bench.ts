/**
 * Gateway benchmark (not a test). In one run, on loopback: an express hello-world baseline, then
 * every row below through the gateway, in two shapes of the platform (bench/shapes.ts): one process
 * as `npm start` runs it, and production's (MongoDB, each service and the gateway as separate
 * processes over TCP, RabbitMQ and Redis). Prints req/s, p50/p99 latency, and each figure as a ratio
 * of the baseline's req/s.
 *
 * Targets (issue 10, one-process shape): GET /tickets/{id} >= 15 % of the baseline, POST /tickets
 * >= 8 %, the list >= 8 %; p99 at most 4x p50 for each.
 *
 *   npx tsx bench/gateway.bench.ts [--duration 10] [--connections 50] [--shape one|multi|both]
 *        [--only get,list,message,post] [--cpu-prof DIR]
 *
 * `--cpu-prof DIR` writes V8 CPU profiles of the platform's processes under DIR (summarise them with
 * bench/profile-summary.ts); `--only` runs some rows (profiles of one kind of request).
 */
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { cpuSeconds, start, stop } from './processes';
import { startMultiProcess, startOneProcess, type RunningShape } from './shapes';

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '50' },
    shape: { type: 'string', default: 'both' },
    only: { type: 'string', default: 'get,list,message,post' },
    'cpu-prof': { type: 'string' },
  },
});
const duration = Number(values.duration);
const connections = Number(values.connections);
const only = new Set(values.only.split(','));
const AMQP_URL = process.env.AMQP_URL || 'amqp://guest:guest@127.0.0.1:5672';
const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';

/** Tickets in the team for the list row (half of them open). */
const LIST_TICKETS = 1_000;

/**
 * `cpuMs`: CPU time the server's processes spent per request while the row ran (all of them, all threads);
 * `idleCpuMs`: the same until they were idle again, so work the requests left behind (events still to
 * consume) counts too: a platform that defers its consumers looks cheap in the first and not in the second.
 */
interface Figure { shape: string; name: string; rps: number; p50: number; p99: number; non2xx: number; cpuMs: number; idleCpuMs: number }

/**
 * Loads one row and reads the CPU time `pids` used meanwhile: on a shared machine req/s move with
 * the neighbours' load, the CPU per request much less.
 */
async function load(shape: string, name: string, pids: number[], opts: autocannon.Options): Promise<Figure> {
  await settle(pids);
  const cpu0 = cpuSeconds(pids);
  const result = await autocannon({ connections, duration, ...opts });
  const requests = Math.max(result.requests.total, 1);
  const cpuMs = ((cpuSeconds(pids) - cpu0) * 1000) / requests;
  await settle(pids);
  const idleCpuMs = ((cpuSeconds(pids) - cpu0) * 1000) / requests;
  return { shape, name, rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, non2xx: result.non2xx + result.errors, cpuMs, idleCpuMs };
}

/**
 * Waits until the platform's processes are idle (under 10 % of a core over half a second, at most
 * 30 s): the events of the seeding or of the previous row are consumed before a row is measured,
 * so a row's figures are its own requests, not another row's backlog.
 */
async function settle(pids: number[]): Promise<void> {
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
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < items.length) await fn(items[next++]);
  }));
}

async function rows(shapeName: string, p: RunningShape): Promise<Figure[]> {
  const base = `${p.baseUrl}/teams/${p.teamId}`;
  const headers = { authorization: `Bearer ${p.secretKey}`, 'content-type': 'application/json' };
  const post = async (url: string, body: unknown, method = 'POST') => {
    const res = await fetch(url, { method, headers, body: JSON.stringify(body) });
    if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`);
    return ((await res.json()) as { data: { id: string } }).data;
  };
  const ids: string[] = [];
  // Only what the chosen rows need: a profile of GETs should not be one of seeding writes.
  const seeded = only.has('list') || only.has('message') ? LIST_TICKETS : 1;
  await inParallel(Array.from({ length: seeded }, (_, i) => i), 16, async (i) => {
    const t = await post(`${base}/tickets`, { title: `Seeded ticket ${i}`, messages: [{ sender: 'customer', content: `hello ${i}` }] });
    if (i % 2 === 0) await post(`${base}/tickets/${t.id}`, { status: 'open' }, 'PATCH');
    ids.push(t.id);
  });
  const figures: Figure[] = [];
  const path = (url: string) => new URL(url).pathname;
  if (only.has('get')) figures.push(await load(shapeName, 'GET /tickets/{id}', p.pids, { url: `${base}/tickets/${ids[0]}`, headers }));
  if (only.has('list')) figures.push(await load(shapeName, 'GET /tickets?status=open&pageSize=20', p.pids, { url: `${base}/tickets?status=open&pageSize=20`, headers }));
  if (only.has('message')) {
    // Spread over the seeded tickets: one ticket taking every message would measure its write conflicts.
    let n = 0;
    const message = JSON.stringify({ content: 'y'.repeat(400), sender: 'agent' });
    figures.push(await load(shapeName, 'POST /tickets/{id}/messages', p.pids, {
      url: base,
      requests: [{ method: 'POST', headers, body: message, setupRequest: (r) => ({ ...r, path: `${path(base)}/tickets/${ids[n++ % ids.length]}/messages` }) }],
    }));
  }
  if (only.has('post')) {
    const body = JSON.stringify({ title: 'Load test ticket', priority: 'high', tags: ['bench'], messages: [{ sender: 'customer', content: 'x'.repeat(800) }] });
    figures.push(await load(shapeName, 'POST /tickets', p.pids, { url: `${base}/tickets`, method: 'POST', headers, body }));
  }
  return figures;
}

async function main(): Promise<void> {
  const figures: Figure[] = [];
  const hello = await start('bench/hello-server.ts', { PORT: '0' }, /listening (\d+)/);
  figures.push(await load('-', 'express hello-world (baseline)', [hello.child.pid!], { url: `http://127.0.0.1:${hello.match[1]}/` }));
  await stop(hello.child);
  const prof = values['cpu-prof'];

  for (const [name, boot] of [
    ['one', () => startOneProcess(prof && `${prof}/one`)],
    ['multi', () => startMultiProcess({ amqpUrl: AMQP_URL, redisUrl: REDIS_URL }, prof && `${prof}/multi`)],
  ] as const) {
    if (values.shape !== 'both' && values.shape !== name) continue;
    const shape = await boot();
    try {
      figures.push(...(await rows(name === 'one' ? 'one process' : 'processes', shape)));
    } finally {
      await shape.stop();
    }
  }

  const baseline = figures[0].rps;
  console.log(`\nconnections ${connections}, ${duration} s each, loopback\n`);
  const baseCpu = figures[0].cpuMs;
  console.log(
    'shape'.padEnd(12) + 'what'.padEnd(38) + 'req/s'.padStart(8) + 'p50 ms'.padStart(8) + 'p99 ms'.padStart(8) + 'p99/p50'.padStart(9) +
      'of baseline'.padStart(13) + 'CPU ms/req'.padStart(12) + 'x baseline'.padStart(12) + 'to idle'.padStart(9) + 'non-2xx'.padStart(9),
  );
  for (const f of figures) {
    console.log(
      f.shape.padEnd(12) + f.name.padEnd(38) + f.rps.toFixed(0).padStart(8) + String(f.p50).padStart(8) + String(f.p99).padStart(8) +
        (f.p99 / Math.max(f.p50, 1)).toFixed(1).padStart(9) + `${((f.rps / baseline) * 100).toFixed(1)} %`.padStart(13) +
        f.cpuMs.toFixed(3).padStart(12) + (f.cpuMs / baseCpu).toFixed(1).padStart(12) + f.idleCpuMs.toFixed(3).padStart(9) + String(f.non2xx).padStart(9),
    );
  }
  console.log('\n(CPU ms/req: CPU time of all the platform\'s processes per request while the row ran; "x baseline": that over the baseline\'s; "to idle": CPU ms/req until the platform was idle again, the events the requests left behind included.)');
  const targets: [string, number][] = [['GET /tickets/{id}', 0.15], ['POST /tickets', 0.08], ['GET /tickets?status=open&pageSize=20', 0.08]];
  console.log('');
  for (const [name, target] of targets) {
    const f = figures.find((x) => x.shape === 'one process' && x.name === name);
    if (!f) continue;
    const ratio = f.rps / baseline;
    const tail = f.p99 / Math.max(f.p50, 1);
    console.log(`${name}: ${(ratio * 100).toFixed(1)} % (target >= ${target * 100} %) ${ratio >= target ? 'met' : 'MISSED'}; p99/p50 ${tail.toFixed(1)} (target <= 4) ${tail <= 4 ? 'met' : 'MISSED'}`);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
