/** Child processes the benchmarks run (a baseline server, the platform in one process or as separate ones). */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(__dirname, '..');

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
