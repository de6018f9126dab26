/**
 * Paired before/after of a read row in one process (not a test; docs/adr/0077). On a shared machine
 * the load moves every figure between runs; here both trees' platforms (`npm start`'s one process)
 * run at once, seeded alike (400 tickets, half open), and take short load bursts in turn (ABBA…), so
 * the neighbours' load falls on both alike. Prints CPU ms per request of each platform process over
 * all its bursts, the ratio after/before, and requests answered (the same connections and seconds).
 *
 *   npx tsx bench/paired-reads.bench.ts --before /work/main [--row list|get] [--rounds 8] [--seconds 3]
 *
 * "after" is this tree. The list row is `GET /tickets?status=open&pageSize=20`, the get row
 * `GET /tickets/{id}`, as in gateway.bench.ts.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { cpuSeconds, stop } from './processes';

const { values } = parseArgs({
  options: {
    before: { type: 'string' },
    row: { type: 'string', default: 'list' },
    rounds: { type: 'string', default: '8' },
    seconds: { type: 'string', default: '3' },
  },
});
if (!values.before) throw new Error('--before DIR: the checkout to compare with (its own node_modules)');
const rounds = Number(values.rounds);
const seconds = Number(values.seconds);
const TICKETS = 400;

interface Side {
  name: string;
  child: ChildProcess;
  dataDir: string;
  url: string;
  headers: Record<string, string>;
  cpu: number;
  requests: number;
}

async function startAt(name: string, root: string): Promise<Side> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'helpdesk-paired-'));
  const env = {
    ...process.env,
    MONGO_URL: '', AMQP_URL: '', REDIS_URL: '',
    RATE_LIMIT_SECRET_PER_MINUTE: '1000000', RATE_LIMIT_PUBLISHABLE_PER_MINUTE: '1000000',
    INBOUND_SMTP_PORT: '0', INBOUND_HTTP_PORT: '0', PORT: '0', DATA_DIR: dataDir, EMBEDDED_MONGO_PORT: '0', METRICS_PORT: '0', LOG_LEVEL: 'warn',
  };
  const child = spawn(process.execPath, ['--import', 'tsx', 'deploy/local/src/main.ts'], { cwd: root, env, stdio: ['ignore', 'pipe', 'inherit'] });
  const base = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk) => {
      out += chunk;
      const m = out.match(/Ready: (\S+)/);
      if (m) {
        child.stdout!.removeAllListeners('data');
        child.stdout!.resume();
        resolve(m[1]!);
      }
    });
    child.on('exit', (code) => reject(new Error(`${root}: exited with ${code}: ${out}`)));
  });
  const creds = JSON.parse(readFileSync(path.join(dataDir, 'credentials.json'), 'utf8'));
  const headers = { authorization: `Bearer ${creds.keys.sk_test}`, 'content-type': 'application/json' };
  const tickets = `${base}/teams/${creds.teamId}/tickets`;
  const ids: string[] = [];
  for (let i = 0; i < TICKETS; i += 16) {
    await Promise.all(
      Array.from({ length: 16 }, async (_, j) => {
        const res = await fetch(tickets, { method: 'POST', headers, body: JSON.stringify({ title: `Seeded ticket ${i + j}`, messages: [{ sender: 'customer', content: `hello ${i + j}` }] }) });
        const t = ((await res.json()) as { data: { id: string } }).data;
        if ((i + j) % 2 === 0) await fetch(`${tickets}/${t.id}`, { method: 'PATCH', headers, body: JSON.stringify({ status: 'open' }) });
        ids.push(t.id);
      }),
    );
  }
  const url = values.row === 'get' ? `${tickets}/${ids[0]}` : `${tickets}?status=open&pageSize=20`;
  return { name, child, dataDir, url, headers, cpu: 0, requests: 0 };
}

async function main(): Promise<void> {
  const before = await startAt('before', path.resolve(values.before!));
  const after = await startAt('after', path.resolve(__dirname, '..'));
  await new Promise((r) => setTimeout(r, 3000));
  for (const s of [before, after]) await autocannon({ url: s.url, headers: s.headers, connections: 50, duration: 2 });
  const load0 = loadavg()[0]!;
  let non2xx = 0;
  for (let i = 0; i < rounds; i++) {
    for (const s of i % 2 ? [after, before] : [before, after]) {
      const c0 = cpuSeconds([s.child.pid!]);
      const r = await autocannon({ url: s.url, headers: s.headers, connections: 50, duration: seconds });
      s.cpu += cpuSeconds([s.child.pid!]) - c0;
      s.requests += r.requests.total;
      non2xx += r.non2xx;
    }
  }
  const perRequest = (s: Side) => (s.cpu * 1000) / s.requests;
  const line = (s: Side) => `${s.name} ${perRequest(s).toFixed(3)} ms CPU/request, ${s.requests} requests`;
  console.log(`${values.row}, ${rounds} rounds of ${seconds} s each: ${line(before)} | ${line(after)} | after/before ${(perRequest(after) / perRequest(before)).toFixed(3)} CPU, ${(after.requests / before.requests).toFixed(2)} requests | non-2xx ${non2xx} | load ${load0.toFixed(1)} → ${loadavg()[0]!.toFixed(1)}`);
  for (const s of [before, after]) {
    await stop(s.child);
    rmSync(s.dataDir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
