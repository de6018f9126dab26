/**
 * Idle benchmark (not a test): what a platform that nobody uses costs, per process (issue 31 item 5:
 * ≤ 0.3 % of a core per process). In one run: an idle express hello-world (the baseline: a node
 * process that only waits), then `npm run start:processes` (every service and the gateway its own
 * process, RabbitMQ, Redis, MongoDB over TCP through a counting proxy) after one ticket was written
 * and its events consumed. Over the same quiet window it prints each process's CPU as a share of one
 * core and as a ratio of the baseline's, and the store commands per second the idle platform still
 * sends, by database, command and collection (the polling that is left, where there is any).
 *
 *   npx tsx bench/idle.bench.ts [--seconds 30] [--shape processes|one] [--cpu-prof DIR]
 *
 * The machine's load average (1, 5, 15 minutes) is printed at the window's start and end.
 *
 * `--cpu-prof DIR` writes V8 CPU profiles of the platform's processes over the quiet window only
 * (summarise them with bench/profile-summary.ts): what the remaining idle CPU is spent on. The
 * processes shape gets them through bench/cpu-prof-preload.cjs's window mode (DIR/<pid>.cpuprofile, names in
 * DIR/pids.json); the sampling costs CPU, so its figures are not the idle figures.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { delta, Probe, settle } from './breakdown';
import { cpuSeconds, start, stop } from './processes';
import { startOneProcess, startProcesses, type RunningShape } from './shapes';

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '30' }, shape: { type: 'string', default: 'processes' }, 'cpu-prof': { type: 'string' } } });
const seconds = Number(values.seconds);
const AMQP_URL = process.env.AMQP_URL || 'amqp://guest:guest@127.0.0.1:5672';
const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
const load = () => loadavg().map((l) => l.toFixed(2)).join(' ');
const pct = (cores: number) => (Number.isFinite(cores) ? `${(cores * 100).toFixed(2)} %` : 'n/a');

/** The processes' environment for `--cpu-prof DIR` in the processes shape (bench/cpu-prof-preload.cjs, its window mode). */
function windowProfiling(dir: string | undefined): Record<string, string> {
  if (!dir) return {};
  mkdirSync(dir, { recursive: true });
  return { NODE_OPTIONS: `--require ${path.resolve(__dirname, 'cpu-prof-preload.cjs')}`, BENCH_CPU_PROF_DIR: path.resolve(dir), BENCH_CPU_PROF_WINDOW: '1' };
}
/** Starts or stops the window's profiles (a file the preload watches for). */
function profileWindow(event: 'start' | 'stop'): void {
  if (values['cpu-prof'] && values.shape !== 'one') writeFileSync(path.join(path.resolve(values['cpu-prof']), event), '');
}

async function main(): Promise<void> {
  const baseline = await start('bench/hello-server.ts', { PORT: '0' }, /listening (\d+)/);
  const shape: RunningShape =
    values.shape === 'one'
      ? await startOneProcess({ cpuProfDir: values['cpu-prof'] })
      : await startProcesses({ amqpUrl: AMQP_URL, redisUrl: REDIS_URL }, { byCommand: true, logLevel: 'warn', env: windowProfiling(values['cpu-prof']) });
  try {
    // One write first, so every consumer, relay and worker has had work once and gone back to sleep.
    const res = await fetch(`${shape.baseUrl}/teams/${shape.teamId}/tickets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${shape.secretKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Idle benchmark', messages: [{ sender: 'customer', content: 'hello' }] }),
    });
    if (res.status !== 201) throw new Error(`POST /tickets: ${res.status} ${await res.text()}`);
    const probe = await Probe.open(shape);
    await settle(probe, 0.05 * probe.platform().length, 60_000);
    // Past the first seconds after the write (retries, batched flushes): the steady idle state.
    await new Promise((r) => setTimeout(r, 5_000));
    profileWindow('start');
    const load0 = load();
    const base0 = cpuSeconds([baseline.child.pid!]);
    const s0 = await probe.snapshot();
    const own0 = probe.ownCommands;
    await new Promise((r) => setTimeout(r, seconds * 1000));
    const s1 = await probe.snapshot();
    profileWindow('stop');
    const base1 = cpuSeconds([baseline.child.pid!]);
    const d = delta(s0, s1, probe.ownCommands - own0);
    const baseCores = (base1 - base0) / d.seconds;

    console.log(`\nIdle ${shape.shape === 'one' ? 'one-process platform' : 'processes shape'} over ${d.seconds.toFixed(1)} s (target: <= 0.30 % of a core per process)\n`);
    console.log(`load average: ${load0} at the start, ${load()} at the end`);
    console.log(`baseline (idle express hello-world): ${pct(baseCores)} of a core`);
    const rows = shape.processes().filter((p) => !p.tooling);
    let total = 0;
    let over = 0;
    for (const p of rows) {
      const cores = (d.cpu.get(p.name) ?? NaN) / d.seconds;
      total += cores;
      if (cores > 0.003) over++;
      const ratio = baseCores > 0 ? `${(cores / baseCores).toFixed(1)}x baseline` : '';
      console.log(`${p.name.padEnd(16)} ${pct(cores).padStart(9)}  ${ratio}`);
    }
    console.log(`${'all'.padEnd(16)} ${pct(total).padStart(9)}  (${rows.length} processes, ${over} over 0.30 %)`);
    const commands = [...d.byCommand].sort((a, b) => b[1] - a[1]);
    const perSecond = commands.reduce((a, [, v]) => a + v, 0) / d.seconds;
    console.log(`\nstore commands at idle: ${perSecond.toFixed(2)}/s${commands.length ? ':' : ''}`);
    for (const [name, n] of commands.slice(0, 15)) console.log(`  ${(n / d.seconds).toFixed(2)}/s  ${name}`);
    console.log(`broker at idle: ${(d.amqp.publishes / d.seconds).toFixed(2)} publishes/s, ${(d.amqp.deliveries / d.seconds).toFixed(2)} deliveries/s`);
    await probe.close();
    if (values['cpu-prof'] && values.shape !== 'one') {
      writeFileSync(path.join(values['cpu-prof'], 'pids.json'), JSON.stringify(shape.processes(), null, 2) + '\n');
    }
  } finally {
    await shape.stop();
    await stop(baseline.child);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
