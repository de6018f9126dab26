/**
 * Analytics benchmark (not a test). A platform started exactly as `npm start` starts it (embedded
 * defaults), one team whose ticket facts (what GET /analytics aggregates, docs/adr/0030) are seeded in
 * ticketing's database: first 1,000 tickets, then 100,000, created over the last 365 days. At each
 * size, `GET /analytics` (the default: overview of the last week), `GET /analytics?period=year` (every
 * ticket of the year) and `GET /analytics/agents` are read one after the other with `GET /tickets/{id}`
 * (the baseline) through the gateway; prints p50/p99 and each p50 as a ratio of the baseline's.
 *
 * Aim (issue 15): the overview at most 20× GET /tickets/{id} at 100,000 tickets.
 *
 *   npx tsx bench/analytics.bench.ts [--reads 20]   (a few minutes: the year range is the slow row)
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { MongoClient } from 'mongodb';
import { start, stop } from './processes';

const { values } = parseArgs({ options: { reads: { type: 'string', default: '20' } } });
const READS = Number(values.reads);
const SIZES = [1_000, 100_000];
const DAY_MS = 86_400_000;
const STATUSES = ['new', 'open', 'pending', 'resolved', 'closed'];
const PRIORITIES = ['low', 'normal', 'high', 'urgent'];
const TIERS = ['gold', 'silver', 'bronze', 'missed', null];

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
const sortNum = (xs: number[]) => [...xs].sort((a, b) => a - b);
const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

/** `count` facts of one team and partition, created uniformly over the last year; ids from `from`. */
function facts(teamId: string, from: number, count: number, now: number, agents: string[]) {
  return Array.from({ length: count }, (_, k) => {
    const i = from + k;
    const createdAt = new Date(now - ((i * 7919) % (365 * 24 * 60)) * 60_000);
    const status = STATUSES[i % STATUSES.length]!;
    const closed = status === 'resolved' || status === 'closed';
    return {
      _id: `tkt_bench${String(i).padStart(19, '0')}`,
      teamId,
      mode: 'test',
      status,
      priority: PRIORITIES[i % PRIORITIES.length]!,
      assignedTo: i % 3 === 0 ? null : agents[i % agents.length]!,
      createdAt,
      closedAt: closed ? new Date(createdAt.getTime() + ((i % 48) + 1) * 3_600_000) : null,
      firstResponseAt: i % 4 === 0 ? null : new Date(createdAt.getTime() + ((i % 120) + 1) * 60_000),
      slaTier: closed ? TIERS[i % TIERS.length]! : null,
      version: createdAt,
    };
  });
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'helpdesk-analytics-bench-'));
  const mongoPort = await freePort();
  const platform = await start(
    'deploy/local/src/main.ts',
    { PORT: '0', DATA_DIR: dataDir, EMBEDDED_MONGO_PORT: String(mongoPort), LOG_LEVEL: 'warn', RATE_LIMIT_SECRET_PER_MINUTE: '1000000000' },
    /Ready: (\S+)/,
  );
  const mongo = new MongoClient(`mongodb://127.0.0.1:${mongoPort}/?directConnection=true`);
  try {
    const creds = JSON.parse(readFileSync(path.join(dataDir, 'credentials.json'), 'utf8'));
    const base = `${platform.match[1]}/teams/${creds.teamId}`;
    const headers = { authorization: `Bearer ${creds.keys.sk_test}`, 'content-type': 'application/json' };
    const call = async (method: string, url: string, body?: unknown) => {
      const res = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
      const text = await res.text();
      if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${text}`);
      return JSON.parse(text).data;
    };
    console.error('platform ready');
    const ticket = await call('POST', `${base}/tickets`, { title: 'Baseline', messages: [{ sender: 'customer', content: 'Hello' }] });
    await mongo.connect();
    const collection = mongo.db('ticketing').collection('ticket_facts');
    const agents = Array.from({ length: 20 }, (_, i) => `mem_benchagent${String(i).padStart(10, '0')}`);
    const now = Date.now() - DAY_MS / 24; // an hour ago: every seeded ticket is in the past

    const rows: [string, string, number[]][] = [];
    let seeded = 0;
    for (const size of SIZES) {
      for (let from = seeded; from < size; from += 10_000) {
        await collection.insertMany(facts(creds.teamId, from, Math.min(10_000, size - from), now, agents) as any[], { ordered: false });
      }
      seeded = size;
      console.error(`seeded ${size} ticket facts; reading`);
      const reads: Record<string, number[]> = { ticket: [], week: [], year: [], agents: [] };
      const timed = async (name: string, url: string) => {
        const s = performance.now();
        await call('GET', url);
        reads[name]!.push(performance.now() - s);
      };
      // Warm-up, then the measured reads, the baseline interleaved with the others.
      for (let i = 0; i < 10; i++) await timed('week', `${base}/analytics`);
      reads.week = [];
      for (let i = 0; i < READS; i++) {
        await timed('ticket', `${base}/tickets/${ticket.id}`);
        await timed('week', `${base}/analytics`);
        await timed('ticket', `${base}/tickets/${ticket.id}`);
        await timed('year', `${base}/analytics?period=year&type=timeseries`);
        await timed('ticket', `${base}/tickets/${ticket.id}`);
        await timed('agents', `${base}/analytics/agents`);
      }
      const week = await call('GET', `${base}/analytics`);
      rows.push([`GET /tickets/{id} (baseline) at ${size.toLocaleString('en')}`, 'ticket', sortNum(reads.ticket!)]);
      rows.push([`GET /analytics (week: ${week.tickets.total} tickets) at ${size.toLocaleString('en')}`, 'week', sortNum(reads.week!)]);
      rows.push([`GET /analytics?period=year&type=timeseries at ${size.toLocaleString('en')}`, 'year', sortNum(reads.year!)]);
      rows.push([`GET /analytics/agents (30 days) at ${size.toLocaleString('en')}`, 'agents', sortNum(reads.agents!)]);
      for (const [name, , xs] of rows.slice(-4)) console.error(`  ${name}: p50 ${pct(xs, 50).toFixed(2)} ms`);
    }

    console.log(`\nanalytics through the gateway, ${READS} reads of each per size, one team, embedded defaults\n`);
    console.log('what'.padEnd(60) + 'p50 ms'.padStart(10) + 'p99 ms'.padStart(10) + 'p50 ×ticket'.padStart(14));
    for (let i = 0; i < rows.length; i += 4) {
      const baseline = pct(rows[i]![2], 50);
      for (const [name, , xs] of rows.slice(i, i + 4)) {
        console.log(name.padEnd(60) + pct(xs, 50).toFixed(2).padStart(10) + pct(xs, 99).toFixed(2).padStart(10) + (pct(xs, 50) / baseline).toFixed(1).padStart(14));
      }
    }
  } finally {
    await mongo.close();
    await stop(platform.child);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
