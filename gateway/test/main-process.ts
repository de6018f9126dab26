import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';

/** The gateway as its own process, as deployed: `node --require tsx/cjs gateway/src/main.ts`. */
export const ROOT = resolve(__dirname, '..', '..');

export function spawnMain(env: Record<string, string>): ChildProcess & { output: () => string } {
  const child = spawn(process.execPath, ['--require', 'tsx/cjs', 'gateway/src/main.ts'], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  return Object.assign(child, { output: () => out });
}

/** Starts main.ts and resolves with its API URL once it logs that it is ready. */
export async function startMain(env: Record<string, string>): Promise<{ child: ChildProcess & { output: () => string }; url: string; stop: () => Promise<number | null> }> {
  const child = spawnMain(env);
  const url = await new Promise<string>((res, rej) => {
    const look = () => {
      const m = /"url":"([^"]+)"/.exec(child.output());
      if (m) res(m[1]);
    };
    child.stdout!.on('data', look);
    child.on('exit', (code) => rej(new Error(`exited ${code}: ${child.output()}`)));
  });
  const stop = () =>
    new Promise<number | null>((res) => {
      if (child.exitCode !== null) return res(child.exitCode);
      child.on('exit', (c) => res(c));
      child.kill('SIGTERM');
    });
  return { child, url, stop };
}

/** Runs main.ts, expecting it to refuse to start: its exit code and what it printed. */
export async function refusedMain(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const child = spawnMain(env);
  const code = await new Promise<number | null>((res) => child.on('exit', (c) => res(c)));
  return { code, output: child.output() };
}
