/** Child processes the benchmarks run (a baseline server, the platform in one process or as separate ones). */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import type { Partition } from '@helpdesk/contracts';

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

/** A free loopback port (the embedded MongoDB's, so a benchmark can seed it directly). */
export const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

/** The 50th/99th… percentile of an ascending list. */
export const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

export interface LocalPlatform {
  /** The gateway's base URL (`…/api/v1`). */
  url: string;
  /** `…/teams/{teamId}` of the dev credentials' team. */
  base: string;
  creds: { teamId: string; keys: Record<string, string> };
  /** Its DATA_DIR (credentials, the mail folder), removed at close. */
  dataDir: string;
  /** The platform process's pid (its memory, its CPU). */
  pid: number;
  /** The embedded MongoDB, reached over TCP (not yet connected). */
  mongo: MongoClient;
  /** A JSON request through the gateway with `key` (default: the partition's secret key; null: none); the whole body, or throws on ≥ 300. */
  call: (method: string, url: string, body?: unknown, key?: string | null) => Promise<any>;
  close: () => Promise<void>;
}

/**
 * The platform as `npm start` runs it (embedded defaults, one process) in a fresh DATA_DIR, with the
 * rate limit out of the way, and its dev credentials read from the data folder.
 */
export async function startLocalPlatform(name: string, mode: Partition = 'test', env: Record<string, string> = {}, nodeArgs: string[] = []): Promise<LocalPlatform> {
  const dataDir = mkdtempSync(path.join(tmpdir(), `helpdesk-${name}-bench-`));
  const mongoPort = await freePort();
  const platform = await start(
    'deploy/local/src/main.ts',
    { PORT: '0', INBOUND_SMTP_PORT: '0', INBOUND_HTTP_PORT: '0', DATA_DIR: dataDir, EMBEDDED_MONGO_PORT: String(mongoPort), LOG_LEVEL: 'warn', RATE_LIMIT_SECRET_PER_MINUTE: '1000000000', ...env },
    /Ready: (\S+)/,
    nodeArgs,
  );
  const mongo = new MongoClient(`mongodb://127.0.0.1:${mongoPort}/?directConnection=true`);
  const creds = JSON.parse(readFileSync(path.join(dataDir, 'credentials.json'), 'utf8'));
  const call = async (method: string, url: string, body?: unknown, key: string | null = creds.keys[`sk_${mode}`]) => {
    const auth: Record<string, string> = key === null ? {} : { authorization: `Bearer ${key}` };
    const res = await fetch(url, { method, headers: { 'content-type': 'application/json', ...auth }, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${text.slice(0, 500)}`);
    return JSON.parse(text);
  };
  return {
    url: platform.match[1]!,
    base: `${platform.match[1]}/teams/${creds.teamId}`,
    creds,
    dataDir,
    pid: platform.child.pid!,
    mongo,
    call,
    close: async () => {
      await mongo.close();
      await stop(platform.child);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
