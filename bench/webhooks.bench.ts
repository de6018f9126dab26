/**
 * Webhooks benchmark (not a test). In one run, on loopback:
 *  1. baseline: the raw HTTP POST time to a receiver (undici, keep-alive, one at a time, a body like a
 *     delivery's), p50/p99;
 *  2. event-to-delivery latency for 2,000 `ticket.created` events: tickets created through the gateway
 *     of a platform started exactly as `npm start` starts it (embedded defaults, journaled data
 *     folder, WEBHOOKS_ALLOW_LOOPBACK=true), measured from the event's `occurredAt` (the body's
 *     `createdAt`) to the moment the same receiver has the request. Prints p50/p99 and their ratio
 *     to the baseline.
 *
 * With one ticket creator (the default) the figure is the pipeline's own latency; more creators add the
 * queueing of a saturated single process (gateway, services and database share one event loop).
 * `--rate N` creates N tickets a second instead (open loop: each create is started on time whatever
 * the earlier ones are doing, at most 1,000 in flight over at most 64 connections; past what the
 * platform takes they queue here, and the line says how late they were sent), the load of issue 31's target (p99 <= 50 ms at
 * 200 events/s). `--shape processes` runs `npm run start:processes` (bench/shapes.ts: every process
 * separate, RabbitMQ and Redis from AMQP_URL/REDIS_URL, default loopback) instead of `npm start`.
 *
 *
 * Then where the time went, per delivery, read from the delivery rows once all arrived (their
 * `createdAt` is when the consumer made them, `attempts[0].at` when the first attempt started):
 * event -> consumer, consumer -> attempt, attempt -> receiver, at p50 and p99, and the mean of each
 * over the slowest 1% (what makes the p99). Then the CPU seconds each platform process used from the
 * first create to the last delivery, per event (the webhooks process's is its own per-event cost in
 * the processes shape), and, from the processes' metrics, GC time and the longest event-loop delay.
 *
 * `--cpu-prof DIR` writes the platform's V8 profiles into DIR (bench/profile-summary.ts reads them; the
 * processes shape writes one per process under DIR/processes, named by pid in pids.json).
 * `--by-command` (processes shape) reaches MongoDB through a counting proxy and prints, per event, the
 * store commands of the webhooks database by name and the messages the bus handed each consumer.
 *
 *   npx tsx bench/webhooks.bench.ts [--events 2000] [--concurrency 1 | --rate 200] [--shape one|processes] [--cpu-prof DIR] [--by-command]
 */
import type { Server } from 'node:http';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { MongoClient } from 'mongodb';
import { Agent, request } from 'undici';
import { Receiver } from '@helpdesk/testing';
import { cpuSeconds } from './processes';
import { startOneProcess, startProcesses, type RunningShape } from './shapes';

const { values } = parseArgs({
  options: {
    events: { type: 'string', default: '2000' },
    concurrency: { type: 'string', default: '1' },
    rate: { type: 'string' },
    shape: { type: 'string', default: 'one' },
    'cpu-prof': { type: 'string' },
    'by-command': { type: 'boolean', default: false },
  },
});
const EVENTS = Number(values.events);
const CONCURRENCY = Number(values.concurrency);
const RATE = values.rate === undefined ? null : Number(values.rate);
if (RATE !== null && !(RATE > 0)) throw new Error('--rate: events a second, above 0');
if (values.shape !== 'one' && values.shape !== 'processes') throw new Error('--shape: one or processes');
const MAX_IN_FLIGHT = 1_000;

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const sortNum = (xs: number[]) => [...xs].sort((a, b) => a - b);

async function baseline(rx: Receiver, body: string): Promise<number[]> {
  const agent = new Agent({ keepAliveTimeout: 4_000 });
  const url = rx.url('/baseline');
  const times: number[] = [];
  try {
    for (let i = 0; i < EVENTS + 200; i++) {
      const t0 = performance.now();
      const res = await request(url, { method: 'POST', dispatcher: agent, headers: { 'content-type': 'application/json', 'x-svc-delivery': `baseline-${i}` }, body });
      await res.body.dump();
      if (i >= 200) times.push(performance.now() - t0); // the first 200 warm up
    }
  } finally {
    await agent.close();
  }
  return times;
}

/** From every process's metrics: GC seconds so far, and the longest event-loop delay since the last read (prom-client resets it at each read). */
async function runtimeStats(platform: RunningShape): Promise<{ gcSeconds: number; loopMaxMs: number }> {
  let gcSeconds = 0;
  let loopMaxMs = 0;
  await Promise.all(
    platform.metricsUrls().map(async (url) => {
      const text = await fetch(url, { signal: AbortSignal.timeout(5000) }).then((r) => r.text(), () => '');
      for (const line of text.split('\n')) {
        const value = Number(line.slice(line.lastIndexOf(' ') + 1));
        if (line.startsWith('helpdesk_nodejs_gc_duration_seconds_sum')) gcSeconds += value;
        else if (line.startsWith('helpdesk_nodejs_eventloop_lag_max_seconds ')) loopMaxMs = Math.max(loopMaxMs, value * 1000);
      }
    }),
  );
  return { gcSeconds, loopMaxMs };
}

const cpuByProcess = (platform: RunningShape) => {
  const out = new Map<string, number>();
  for (const p of platform.processes().filter((x) => !x.tooling)) out.set(p.name, (out.get(p.name) ?? 0) + cpuSeconds([p.pid]));
  return out;
};

async function main(): Promise<void> {
  const rx = await Receiver.start();
  // Keep-alive as a deployed receiver's (Node's default, 5 s): the test receiver's 1 s is below undici's
  // 2 s margin, so every delivery would open a connection of its own.
  (rx as unknown as { server: Server }).server.keepAliveTimeout = 5_000;
  const loadAt = [loadavg()];
  const env = { WEBHOOKS_ALLOW_LOOPBACK: 'true' };
  const cpuProfDir = values['cpu-prof'];
  const byCommand = values['by-command'];
  if (byCommand && values.shape !== 'processes') throw new Error('--by-command: the processes shape only');
  const platform =
    values.shape === 'processes'
      ? await startProcesses({ amqpUrl: process.env.AMQP_URL || 'amqp://guest:guest@127.0.0.1:5672', redisUrl: process.env.REDIS_URL || 'redis://127.0.0.1:6379' }, { env, cpuProfDir, byCommand })
      : await startOneProcess({ env, cpuProfDir });
  try {
    const base = `${platform.baseUrl}/teams/${platform.teamId}`;
    const headers = { authorization: `Bearer ${platform.secretKey}`, 'content-type': 'application/json' };
    const hook = await fetch(`${base}/webhooks`, { method: 'POST', headers, body: JSON.stringify({ name: 'bench', url: rx.url('/hook'), events: 'ticket.created' }) });
    if (hook.status !== 201) throw new Error(`webhook create: ${hook.status} ${await hook.text()}`);

    // A warm-up ticket, delivered before anything is measured.
    await fetch(`${base}/tickets`, { method: 'POST', headers, body: JSON.stringify({ title: 'warm-up' }) });
    await rx.waitFor((r) => r.some((x) => x.path === '/hook'), 'the warm-up delivery', 30_000);
    const sampleBody = rx.forPath('/hook')[0].body;

    const base1 = await baseline(rx, sampleBody);

    const before = rx.forPath('/hook').length;
    const connections0 = rx.connections;
    const cpu0 = cpuByProcess(platform);
    const rt0 = await runtimeStats(platform);
    const commands0 = platform.storeCommands?.();
    const amqp0 = platform.amqpCounts?.();
    const t0 = performance.now();
    // At most 64 connections: past what the platform can take, creates wait here (and are late)
    // instead of opening ever more connections.
    const clients = new Agent({ connections: 64, keepAliveTimeout: 10_000 });
    const create = async (n: number) => {
      const res = await request(`${base}/tickets`, { method: 'POST', dispatcher: clients, headers, body: JSON.stringify({ title: `Bench ticket ${n}`, priority: 'high' }), headersTimeout: 120_000, bodyTimeout: 120_000 });
      if (res.statusCode !== 201) throw new Error(`ticket create: ${res.statusCode} ${await res.body.text()}`);
      await res.body.dump();
    };
    /** Open loop (--rate): how late the creates were sent, at worst. */
    let maxLagMs = 0;
    if (RATE === null) {
      let next = 0;
      const creator = async () => {
        while (next < EVENTS) await create(++next);
      };
      await Promise.all(Array.from({ length: CONCURRENCY }, creator));
    } else {
      const inFlight = new Set<Promise<void>>();
      for (let n = 1; n <= EVENTS; n++) {
        const due = t0 + ((n - 1) * 1000) / RATE;
        const wait = due - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        while (inFlight.size >= MAX_IN_FLIGHT) await Promise.race(inFlight);
        maxLagMs = Math.max(maxLagMs, performance.now() - due);
        const p: Promise<void> = create(n).finally(() => inFlight.delete(p));
        inFlight.add(p);
      }
      await Promise.all(inFlight);
    }
    const createdIn = performance.now() - t0;
    await clients.close();
    await rx.waitFor((r) => r.filter((x) => x.path === '/hook').length >= before + EVENTS, `${EVENTS} deliveries`, 300_000);
    const deliveredIn = performance.now() - t0;
    const cpu1 = cpuByProcess(platform);
    const rt1 = await runtimeStats(platform);
    const commands1 = platform.storeCommands?.();
    const amqp1 = platform.amqpCounts?.();

    const latencies = rx.forPath('/hook').slice(before).map((r) => r.at - Date.parse(JSON.parse(r.body).createdAt));
    const ids = new Set(rx.forPath('/hook').slice(before).map((r) => r.headers['x-svc-delivery']));

    const b = sortNum(base1);
    const l = sortNum(latencies);
    const row = (name: string, p50: number, p99: number, ratio50: string, ratio99: string) =>
      console.log(name.padEnd(44) + p50.toFixed(2).padStart(10) + p99.toFixed(2).padStart(10) + ratio50.padStart(12) + ratio99.padStart(12));
    loadAt.push(loadavg());
    const load = `load average (1, 5, 15 min) ${loadAt.map((l) => l.map((x) => x.toFixed(2)).join(' ')).join(' -> ')}`;
    const how = RATE === null ? `${CONCURRENCY} concurrent ticket creators` : `${RATE} creates/s (open loop; started at worst ${maxLagMs.toFixed(0)} ms late)`;
    const shape = values.shape === 'processes' ? 'npm run start:processes (RabbitMQ, Redis, every process separate)' : 'embedded defaults (npm start)';
    console.log(`\n${EVENTS} ticket.created events, ${how}, loopback receiver, ${shape}; ${load}\n`);
    console.log('what'.padEnd(44) + 'p50 ms'.padStart(10) + 'p99 ms'.padStart(10) + 'p50 ×base'.padStart(12) + 'p99 ×base'.padStart(12));
    row('raw HTTP POST to the receiver (baseline)', pct(b, 50), pct(b, 99), '1.0', '1.0');
    row('event occurredAt -> delivery at the receiver', pct(l, 50), pct(l, 99), (pct(l, 50) / pct(b, 50)).toFixed(1), (pct(l, 99) / pct(b, 99)).toFixed(1));
    console.log(`\nmax latency ${l[l.length - 1].toFixed(0)} ms; ${ids.size} distinct deliveries of ${EVENTS}; tickets created in ${(createdIn / 1000).toFixed(1)} s (${(EVENTS / (createdIn / 1000)).toFixed(0)}/s), all delivered ${((deliveredIn - createdIn) / 1000).toFixed(2)} s after the last create; ${rx.connections - connections0} connections opened to the receiver`);

    // Where the time went: the delivery rows' own times beside the receiver's.
    const mongo = new MongoClient(platform.mongoUrl, { directConnection: true, maxPoolSize: 1 });
    await mongo.connect();
    try {
      const received = rx.forPath('/hook').slice(before);
      const rows = await mongo
        .db('webhooks')
        .collection<{ _id: string; createdAt: Date; attempts: { at: Date }[] }>('deliveries')
        .find({ _id: { $in: received.map((r) => String(r.headers['x-svc-delivery'])) } }, { projection: { createdAt: 1, 'attempts.at': 1 } })
        .toArray();
      const byId = new Map(rows.map((r) => [r._id, r]));
      const stages = received.flatMap((r) => {
        const row = byId.get(String(r.headers['x-svc-delivery']));
        if (!row?.attempts?.length) return [];
        const occurred = Date.parse(JSON.parse(r.body).createdAt);
        const consumed = row.createdAt.getTime();
        const attempted = row.attempts[0].at.getTime();
        return [{ total: r.at - occurred, consumer: consumed - occurred, attempt: attempted - consumed, receiver: r.at - attempted }];
      });
      const slowest = [...stages].sort((a, b) => b.total - a.total).slice(0, Math.max(1, Math.ceil(stages.length / 100)));
      const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
      console.log(`\nwhere the time went (${stages.length} deliveries; ms)`.padEnd(45) + 'p50'.padStart(10) + 'p99'.padStart(10) + 'slowest 1%'.padStart(12));
      for (const [name, key] of [['event -> consumer (delivery row written)', 'consumer'], ['consumer -> first attempt started', 'attempt'], ['attempt -> receiver has it', 'receiver']] as const) {
        const xs = sortNum(stages.map((s) => s[key]));
        console.log(`  ${name}`.padEnd(44) + pct(xs, 50).toFixed(0).padStart(10) + pct(xs, 99).toFixed(0).padStart(10) + mean(slowest.map((s) => s[key])).toFixed(0).padStart(12));
      }
    } finally {
      await mongo.close();
    }
    const seconds = deliveredIn / 1000;
    const cpuRows = [...cpu1].map(([name, v]) => [name, v - (cpu0.get(name) ?? v)] as const).filter(([, v]) => v > 0).sort((a, b) => b[1] - a[1]);
    const cpuTotal = cpuRows.reduce((a, [, v]) => a + v, 0);
    console.log(`\nCPU from the first create to the last delivery (${seconds.toFixed(1)} s): ${cpuTotal.toFixed(1)} s, ${((cpuTotal * 1000) / EVENTS).toFixed(2)} ms per event; by process (ms per event):`);
    console.log('  ' + cpuRows.slice(0, 8).map(([name, v]) => `${name} ${((v * 1000) / EVENTS).toFixed(2)}`).join(', '));
    console.log(`GC ${((rt1.gcSeconds - rt0.gcSeconds) * 1000).toFixed(0)} ms in all; longest event-loop delay of any process ${rt1.loopMaxMs.toFixed(0)} ms`);
    const perEvent = (after: Map<string, number>, before: Map<string, number> | undefined, keep: (k: string) => boolean) =>
      [...after].map(([k, v]) => [k, v - (before?.get(k) ?? 0)] as const).filter(([k, v]) => v > 0 && keep(k)).sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k} ${(v / EVENTS).toFixed(2)}`).join(', ');
    if (commands1) console.log(`store commands of the webhooks database per event: ${perEvent(commands1, commands0, (k) => k.startsWith('webhooks '))}`);
    if (amqp1) console.log(`messages the bus handed each consumer per event: ${perEvent(amqp1.deliveriesBy, amqp0?.deliveriesBy, () => true)}`);
  } finally {
    await platform.stop();
    await rx.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
