// THROWAWAY (not committed): heap snapshots of the one-process platform without and with N streams.
import { mkdtempSync, readFileSync, readdirSync, renameSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { start, stop, freePort } from './processes';
const N = Number(process.argv[2] ?? 2000);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function snap(pid: number, name: string, cwd: string) {
  const before = new Set(readdirSync(cwd));
  process.kill(pid, 'SIGUSR2');
  for (;;) {
    await sleep(1000);
    const f = readdirSync(cwd).find((x) => x.endsWith('.heapsnapshot') && !before.has(x));
    if (f) { await sleep(8000); renameSync(path.join(cwd, f), `/tmp/psheap/${name}.heapsnapshot`); return; }
  }
}
(async () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'psheap-'));
  const root = path.resolve(__dirname, '..');
  const p = await start('deploy/local/src/main.ts', { PORT: '0', DATA_DIR: dataDir, EMBEDDED_MONGO_PORT: String(await freePort()), LOG_LEVEL: 'warn', RATE_LIMIT_SECRET_PER_MINUTE: '1000000000', NODE_OPTIONS: '--heapsnapshot-signal=SIGUSR2' }, /Ready: (\S+)/);
  const creds = JSON.parse(readFileSync(path.join(dataDir, 'credentials.json'), 'utf8'));
  const url = `${p.match[1]}/teams/${creds.teamId}/events/stream?types=ticket.created`;
  const open = () => new Promise<void>((resolve, reject) => {
    const req = request(url, { headers: { authorization: `Bearer ${creds.keys.sk_live}`, accept: 'text/event-stream' }, agent: false }, (res) => { res.once('data', () => resolve()); res.resume(); });
    req.on('error', reject); req.end();
  });
  // warm
  for (let i = 0; i < 50; i++) await open();
  await sleep(2000);
  await snap(p.child.pid!, 'a', root);
  for (let i = 0; i < N; i += 250) await Promise.all(Array.from({ length: 250 }, open));
  await sleep(2000);
  await snap(p.child.pid!, 'b', root);
  await stop(p.child);
  process.exit(0);
})();
