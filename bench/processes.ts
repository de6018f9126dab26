/** Child processes the benchmarks run (a baseline server, the platform in one process or as separate ones). */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';

/** Where the platform's code is run from: this tree, or BENCH_ROOT (another checkout, e.g. a "before" tree). */
const root = process.env.BENCH_ROOT ? path.resolve(process.env.BENCH_ROOT) : path.resolve(__dirname, '..');

/**
 * Runs `script` with tsx and resolves once its stdout matches `readyLine`. `nodeArgs` go before the
 * script (`--cpu-prof`, `--cpu-prof-dir=…`).
 */
export function start(
  script: string,
  env: Record<string, string>,
  readyLine: RegExp,
  nodeArgs: string[] = [],
  args: string[] = [],
): Promise<{ child: ChildProcess; match: RegExpMatchArray }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', script, ...args], { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    const timer = setTimeout(() => reject(new Error(`${script} did not start: ${out}`)), 60_000);
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const match = out.match(readyLine);
      if (match) {
        clearTimeout(timer);
        out = '';
        // Keep draining stdout (request logs would otherwise fill the pipe and stall the child).
        child.stdout!.off('data', onData);
        child.stdout!.resume();
        resolve({ child, match });
      }
    };
    child.stdout!.on('data', onData);
    child.on('exit', (code) => reject(new Error(`${script} exited with ${code}: ${out}`)));
  });
}

export function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.removeAllListeners('exit');
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

const TICKS_PER_SECOND = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;
  } catch {
    return 100;
  }
})();

/**
 * CPU seconds (user + system, all threads) the processes have used so far, from /proc (Linux):
 * what a request costs, whatever else the machine runs. NaN where /proc is not there.
 */
export function cpuSeconds(pids: number[]): number {
  let ticks = 0;
  for (const pid of pids) {
    try {
      // Fields after the command name (which may contain spaces): utime and stime are the 12th and 13th.
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      return NaN;
    }
  }
  return ticks / TICKS_PER_SECOND;
}
