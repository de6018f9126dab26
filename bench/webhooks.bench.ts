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
 *
 *   npx tsx bench/webhooks.bench.ts [--events 2000] [--concurrency 1]
 */
import { start, stop } from './processes';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { Agent, request } from 'undici';
import { Receiver } from '@helpdesk/testing';

const { values } = parseArgs({ options: { events: { type: 'string', default: '2000' }, concurrency: { type: 'string', default: '1' } } });
const EVENTS = Number(values.events);
const CONCURRENCY = Number(values.concurrency);

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

async function main(): Promise<void> {
  const rx = await Receiver.start();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'helpdesk-webhooks-bench-'));
  const platform = await start(
    'deploy/local/src/main.ts',
    { PORT: '0', DATA_DIR: dataDir, EMBEDDED_MONGO_PORT: '0', LOG_LEVEL: 'warn', WEBHOOKS_ALLOW_LOOPBACK: 'true', RATE_LIMIT_SECRET_PER_MINUTE: '1000000000' },
    /Ready: (\S+)/,
  );
  try {
    const creds = JSON.parse(readFileSync(path.join(dataDir, 'credentials.json'), 'utf8'));
    const base = `${platform.match[1]}/teams/${creds.teamId}`;
    const headers = { authorization: `Bearer ${creds.keys.sk_test}`, 'content-type': 'application/json' };
    const hook = await fetch(`${base}/webhooks`, { method: 'POST', headers, body: JSON.stringify({ name: 'bench', url: rx.url('/hook'), events: 'ticket.created' }) });
    if (hook.status !== 201) throw new Error(`webhook create: ${hook.status} ${await hook.text()}`);

    // A warm-up ticket, delivered before anything is measured.
    await fetch(`${base}/tickets`, { method: 'POST', headers, body: JSON.stringify({ title: 'warm-up' }) });
    await rx.waitFor((r) => r.some((x) => x.path === '/hook'), 'the warm-up delivery', 30_000);
    const sampleBody = rx.forPath('/hook')[0].body;

    const base1 = await baseline(rx, sampleBody);

    const before = rx.forPath('/hook').length;
    const t0 = performance.now();
    let next = 0;
    const creator = async () => {
      while (next < EVENTS) {
        next++;
        const res = await fetch(`${base}/tickets`, { method: 'POST', headers, body: JSON.stringify({ title: `Bench ticket ${next}`, priority: 'high' }) });
        if (res.status !== 201) throw new Error(`ticket create: ${res.status}`);
        await res.arrayBuffer();
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, creator));
    const createdIn = performance.now() - t0;
    await rx.waitFor((r) => r.filter((x) => x.path === '/hook').length >= before + EVENTS, `${EVENTS} deliveries`, 300_000);
    const deliveredIn = performance.now() - t0;

    const latencies = rx.forPath('/hook').slice(before).map((r) => r.at - Date.parse(JSON.parse(r.body).createdAt));
    const ids = new Set(rx.forPath('/hook').slice(before).map((r) => r.headers['x-svc-delivery']));

    const b = sortNum(base1);
    const l = sortNum(latencies);
    const row = (name: string, p50: number, p99: number, ratio50: string, ratio99: string) =>
      console.log(name.padEnd(44) + p50.toFixed(2).padStart(10) + p99.toFixed(2).padStart(10) + ratio50.padStart(12) + ratio99.padStart(12));
    console.log(`\n${EVENTS} ticket.created events, ${CONCURRENCY} concurrent ticket creators, loopback receiver, embedded defaults (npm start)\n`);
    console.log('what'.padEnd(44) + 'p50 ms'.padStart(10) + 'p99 ms'.padStart(10) + 'p50 ×base'.padStart(12) + 'p99 ×base'.padStart(12));
    row('raw HTTP POST to the receiver (baseline)', pct(b, 50), pct(b, 99), '1.0', '1.0');
    row('event occurredAt -> delivery at the receiver', pct(l, 50), pct(l, 99), (pct(l, 50) / pct(b, 50)).toFixed(1), (pct(l, 99) / pct(b, 99)).toFixed(1));
    console.log(`\nmax latency ${l[l.length - 1].toFixed(0)} ms; ${ids.size} distinct deliveries of ${EVENTS}; tickets created in ${(createdIn / 1000).toFixed(1)} s (${(EVENTS / (createdIn / 1000)).toFixed(0)}/s), all delivered ${((deliveredIn - createdIn) / 1000).toFixed(2)} s after the last create`);
  } finally {
    await stop(platform.child);
    rmSync(dataDir, { recursive: true, force: true });
    await rx.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
