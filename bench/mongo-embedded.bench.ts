/**
 * Embedded MongoDB server: find-by-unique-field throughput against a full-scan query on the same
 * 100,000-document collection, through the real mongodb driver over loopback TCP; then a one-week
 * range and a newest-20 page within one team (2,000 documents over a year), from the index
 * {team, createdAt} (docs/adr/0042) against the same queries before that index exists.
 *
 *   npx tsx bench/mongo-embedded.bench.ts [--docs 100000] [--seconds 3] [--concurrency 16]
 *
 * Not a test: it prints ops/s for both and their ratio.
 */
import { MongoClient } from 'mongodb';
import { measure } from './closed-loop';
import { startEmbeddedMongo } from '@helpdesk/mongo-embedded';

function arg(name: string, def: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : def;
}

const DAY = 86_400_000;
const YEAR_AGO = Date.UTC(2025, 0, 1);

async function main(): Promise<void> {
  const N = arg('docs', 100_000);
  const seconds = arg('seconds', 3);
  const concurrency = arg('concurrency', 16);
  const server = await startEmbeddedMongo();
  const client = await MongoClient.connect(server.uri(), { maxPoolSize: concurrency });
  const c = client.db('bench').collection('users');
  const t0 = Date.now();
  for (let i = 0; i < N; i += 10_000) {
    await c.insertMany(
      Array.from({ length: Math.min(10_000, N - i) }, (_, k) => {
        const n = i + k;
        return { email: `user${n}@example.com`, name: `User ${n}`, team: `team${n % 50}`, score: n % 997, createdAt: new Date(YEAR_AGO + ((n * 7919) % N) * (365 * DAY / N)) };
      }),
    );
  }
  await c.createIndex({ email: 1 }, { unique: true });
  console.log(`loaded ${N} documents and built the unique index in ${Date.now() - t0} ms`);

  const rnd = (i: number) => (i * 7919) % N;
  await measure(0.5, concurrency, (i) => c.findOne({ email: `user${rnd(i)}@example.com` }));
  const s0 = server.stats();
  const indexed = await measure(seconds, concurrency, (i) => c.findOne({ email: `user${rnd(i)}@example.com` }));
  const s1 = server.stats();
  const scan = await measure(seconds, Math.min(concurrency, 4), (i) => c.find({ name: `User ${rnd(i)}` }).toArray());
  const s2 = server.stats();

  const fmt = (n: number) => n.toFixed(n < 100 ? 1 : 0);
  console.log(`find by unique indexed field (email): ${fmt(indexed.perSec)} ops/s (${(s1.docsExamined - s0.docsExamined) / indexed.ops} docs examined per query)`);
  console.log(`full-scan query (unindexed name):     ${fmt(scan.perSec)} ops/s (${Math.round((s2.docsExamined - s1.docsExamined) / scan.ops)} docs examined per query)`);
  console.log(`ratio indexed / full scan:            ${fmt(indexed.perSec / scan.perSec)}x`);

  // One team's week, and its newest 20, with only {team} to narrow them, then with {team, createdAt}.
  const week = (i: number) => {
    const from = new Date(YEAR_AGO + (i % 51) * 7 * DAY);
    return { team: `team${i % 50}`, createdAt: { $gte: from, $lt: new Date(from.getTime() + 7 * DAY) } };
  };
  const newest = (i: number) => c.find({ team: `team${i % 50}` }).sort({ createdAt: -1 }).limit(20).toArray();
  const perQuery = async (op: (i: number) => Promise<unknown>) => {
    const before = server.stats();
    const r = await measure(seconds, Math.min(concurrency, 4), op);
    return { ...r, examined: Math.round((server.stats().docsExamined - before.docsExamined) / r.ops) };
  };
  await c.createIndex({ team: 1 });
  const rangeByTeam = await perQuery((i) => c.find(week(i)).toArray());
  const pageByTeam = await perQuery(newest);
  await c.createIndex({ team: 1, createdAt: 1 });
  await measure(0.5, 4, (i) => c.find(week(i)).toArray());
  const rangeByRun = await perQuery((i) => c.find(week(i)).toArray());
  const pageByRun = await perQuery(newest);
  console.log(`one team's week, index {team}:          ${fmt(rangeByTeam.perSec)} ops/s (${rangeByTeam.examined} docs examined per query)`);
  console.log(`one team's week, index {team, createdAt}: ${fmt(rangeByRun.perSec)} ops/s (${rangeByRun.examined} docs examined per query): ${fmt(rangeByRun.perSec / rangeByTeam.perSec)}x`);
  console.log(`one team's newest 20, index {team}:     ${fmt(pageByTeam.perSec)} ops/s (${pageByTeam.examined} docs examined per query)`);
  console.log(`one team's newest 20, {team, createdAt}: ${fmt(pageByRun.perSec)} ops/s (${pageByRun.examined} docs examined per query): ${fmt(pageByRun.perSec / pageByTeam.perSec)}x`);
  await client.close();
  await server.close();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
