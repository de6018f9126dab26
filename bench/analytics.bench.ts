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
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { pct, startLocalPlatform } from './processes';

const { values } = parseArgs({ options: { reads: { type: 'string', default: '20' } } });
const READS = Number(values.reads);
const SIZES = [1_000, 100_000];
const DAY_MS = 86_400_000;
const STATUSES = ['new', 'open', 'pending', 'resolved', 'closed'];
const PRIORITIES = ['low', 'normal', 'high', 'urgent'];
const TIERS = ['gold', 'silver', 'bronze', 'missed', null];

const sortNum = (xs: number[]) => [...xs].sort((a, b) => a - b);

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
  const { base, creds, mongo, call: request, close } = await startLocalPlatform('analytics');
  try {
    const call = async (method: string, url: string, body?: unknown) => (await request(method, url, body)).data;
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
    await close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
