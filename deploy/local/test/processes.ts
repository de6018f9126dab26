/**
 * Helpers for the tests that run the local platform as a user does (a child process, or `npm start`)
 * and watch its process tree. Every wait is bounded; cleanup only touches what the test started: the
 * process groups of the children it spawned detached (each group's id is that child's pid).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import * as net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startUntilReady as startReady, type StartedProcess } from '../src/run-processes';

export const root = path.resolve(__dirname, '../../..');

export type Started = StartedProcess;

const groups = new Set<number>();
const dirs = new Set<string>();
const servers = new Set<net.Server>();

export function tempDir(prefix: string): string {
  const d = mkdtempSync(path.join(tmpdir(), prefix));
  dirs.add(d);
  return d;
}

/** The environment of a local start on embedded defaults with `dataDir`, plus `extra`. */
export function localEnv(dataDir: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { ...process.env, PORT: '0', INBOUND_SMTP_PORT: '0', INBOUND_HTTP_PORT: '0', DATA_DIR: dataDir, EMBEDDED_MONGO_PORT: '0', LOG_LEVEL: 'warn', AMQP_URL: '', REDIS_URL: '', MONGO_URL: '', ...extra };
}

/** Whatever a test started with @helpdesk/local's helpers: its process group is killed at cleanup. */
export function track<T extends { pid: number }>(started: T): T {
  groups.add(started.pid);
  return started;
}

/** Spawns `command args` in its own process group (@helpdesk/local's startUntilReady) and resolves once it printed `Ready: <url>`. */
export async function startUntilReady(command: string, args: string[], env: NodeJS.ProcessEnv, timeoutMs = 60_000): Promise<Started> {
  return track(await startReady(command, args, { env, timeoutMs }));
}

/** `npm start` from the repository root, as the README says. */
export function npmStart(env: NodeJS.ProcessEnv): Promise<Started> {
  return startUntilReady(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['start'], env);
}

/** The platform's entry point run directly with node (what the `start` script runs). */
export function nodeStart(env: NodeJS.ProcessEnv): Promise<Started> {
  return startUntilReady(process.execPath, ['--require', 'tsx/cjs', '--require', './shared/kit/src/telemetry/register.ts', 'deploy/local/src/main.ts'], env);
}

/** Every descendant of `pid` (children first found with `ps -o pid= --ppid`, recursively). */
export function descendants(pid: number): number[] {
  let out = '';
  try {
    out = execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' });
  } catch {
    return []; // ps exits 1 when there is none
  }
  const kids = out.split(/\s+/).filter(Boolean).map(Number);
  return kids.flatMap((k) => [k, ...descendants(k)]);
}

/** Whether `pid` still runs (a zombie waiting to be reaped counts as gone). */
export function isRunning(pid: number): boolean {
  try {
    const stat = execFileSync('ps', ['-o', 'stat=', '-p', String(pid)], { encoding: 'utf8' }).trim();
    return stat !== '' && !stat.startsWith('Z');
  } catch {
    return false;
  }
}

export async function waitFor(what: string, cond: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Resolves with the connect error's code (ECONNREFUSED when nothing listens), or 'connected'. */
export function tryConnect(port: number, host = '127.0.0.1'): Promise<string> {
  return new Promise((resolve) => {
    const s = net.connect({ port, host });
    const timer = setTimeout(() => {
      s.destroy();
      resolve('timeout');
    }, 2000);
    s.once('connect', () => {
      clearTimeout(timer);
      s.destroy();
      resolve('connected');
    });
    s.once('error', (e: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      resolve(e.code ?? e.message);
    });
  });
}

/** A test-owned TCP server on a free loopback port, held until cleanup; resolves with its port. */
export async function occupyFreePort(): Promise<number> {
  const s = net.createServer((sock) => sock.destroy());
  await new Promise<void>((resolve, reject) => {
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => resolve());
  });
  servers.add(s);
  return (s.address() as net.AddressInfo).port;
}

export function portOf(url: string): number {
  return Number(new URL(url).port);
}

/** Kills what the test started and is still running (its process groups), closes its servers, removes its folders. */
export async function cleanup(): Promise<void> {
  for (const pgid of groups) {
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  groups.clear();
  for (const s of servers) await new Promise<void>((r) => s.close(() => r()));
  servers.clear();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  dirs.clear();
}
