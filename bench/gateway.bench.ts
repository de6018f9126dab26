/**
 * Gateway benchmark (not a test). In one run, on loopback: an express hello-world baseline, then
 * `GET /tickets/{id}` and `POST /tickets` through the gateway of a platform started exactly as
 * `npm start` starts it (embedded defaults, rate limits raised by configuration). Prints req/s and
 * p50/p99 latency, and each figure as a ratio of the baseline's req/s.
 * Targets (issue 3): GET >= 30 % of the baseline, POST >= 15 %.
 *
 *   npx tsx bench/gateway.bench.ts [--duration 10] [--connections 50]
 */
import { start, stop } from './processes';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';

const { values } = parseArgs({ options: { duration: { type: 'string', default: '10' }, connections: { type: 'string', default: '50' } } });
const duration = Number(values.duration);
const connections = Number(values.connections);

interface Figure { name: string; rps: number; p50: number; p99: number; non2xx: number }

async function load(name: string, opts: autocannon.Options): Promise<Figure> {
  const result = await autocannon({ connections, duration, ...opts });
  return { name, rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, non2xx: result.non2xx + result.errors };
}

async function main(): Promise<void> {
  const figures: Figure[] = [];
  const hello = await start('bench/hello-server.ts', { PORT: '0' }, /listening (\d+)/);
  figures.push(await load('express hello-world (baseline)', { url: `http://127.0.0.1:${hello.match[1]}/` }));
  await stop(hello.child);

  const dataDir = mkdtempSync(path.join(tmpdir(), 'helpdesk-bench-'));
  const platform = await start(
    'deploy/local/src/main.ts',
    { PORT: '0', DATA_DIR: dataDir, EMBEDDED_MONGO_PORT: '0', LOG_LEVEL: 'warn', RATE_LIMIT_SECRET_PER_MINUTE: '1000000000', RATE_LIMIT_PUBLISHABLE_PER_MINUTE: '1000000000' },
    /Ready: (\S+)/,
  );
  try {
    const creds = JSON.parse(readFileSync(path.join(dataDir, 'credentials.json'), 'utf8'));
    const base = `${platform.match[1]}/teams/${creds.teamId}`;
    const headers = { authorization: `Bearer ${creds.keys.sk_test}`, 'content-type': 'application/json' };
    const created = await fetch(`${base}/tickets`, { method: 'POST', headers, body: JSON.stringify({ title: 'Benchmark ticket', messages: [{ sender: 'customer', content: 'hello' }] }) });
    const ticket = (await created.json()) as { data: { id: string } };
    figures.push(await load('GET /tickets/{id} via gateway', { url: `${base}/tickets/${ticket.data.id}`, headers }));
    const body = JSON.stringify({ title: 'Load test ticket', priority: 'high', tags: ['bench'], messages: [{ sender: 'customer', content: 'x'.repeat(800) }] });
    figures.push(await load('POST /tickets via gateway', { url: `${base}/tickets`, method: 'POST', headers, body }));
  } finally {
    await stop(platform.child);
    rmSync(dataDir, { recursive: true, force: true });
  }

  const baseline = figures[0].rps;
  console.log(`\nconnections ${connections}, ${duration} s each, loopback\n`);
  console.log('what'.padEnd(34) + 'req/s'.padStart(10) + 'p50 ms'.padStart(9) + 'p99 ms'.padStart(9) + 'of baseline'.padStart(13) + 'non-2xx'.padStart(9));
  for (const f of figures) {
    console.log(f.name.padEnd(34) + f.rps.toFixed(0).padStart(10) + String(f.p50).padStart(9) + String(f.p99).padStart(9) + `${((f.rps / baseline) * 100).toFixed(1)} %`.padStart(13) + String(f.non2xx).padStart(9));
  }
  const [, get, post] = figures;
  console.log(`\nGET ratio ${(get.rps / baseline).toFixed(3)} (target >= 0.30): ${get.rps / baseline >= 0.3 ? 'met' : 'MISSED'}`);
  console.log(`POST ratio ${(post.rps / baseline).toFixed(3)} (target >= 0.15): ${post.rps / baseline >= 0.15 ? 'met' : 'MISSED'}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
