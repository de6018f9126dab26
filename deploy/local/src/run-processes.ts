/**
 * The local platform run from code, as a user runs it: `npm run start:processes` (or `npm start`) as a
 * child in its own process group, resolved once it printed `Ready: <url>`. One helper for the tests
 * (deploy/local/test, e2e's HELPDESK_PLATFORM=processes), the benchmarks (bench/) and the chaos run
 * (scripts/chaos.ts), so each starts, reads and stops the platform the same way:
 *
 * - every wait is bounded (Ready within `timeoutMs`, a stop within `stopGraceMs`);
 * - `stop()` signals the npm process alone (as a process manager does; npm passes it on and the
 *   launcher stops the gateway, the services, then the database), then SIGKILLs whatever its process
 *   group still holds; it never touches a process it did not start;
 * - DATA_DIR/credentials.json and DATA_DIR/processes.json are read as the launcher wrote them.
 *
 * Also here: removing a run's RabbitMQ exchanges and queues (each run names its own with
 * AMQP_EXCHANGE and AMQP_QUEUE_PREFIX) from a shared broker.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SERVICES } from '../../registry';
import type { DevCredentials } from './credentials';

/** The repository this module belongs to (where `npm start` and `npm run start:processes` run). */
export const REPOSITORY_ROOT = path.resolve(__dirname, '../../..');

const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
/** Output kept for `output()` (the start banner and what came after, up to this many characters). */
const KEPT_OUTPUT = 4 * 1024 * 1024;

export interface StartedProcess {
  child: ChildProcess;
  /** The child's pid, which is also its process group's id. */
  pid: number;
  /** What it printed after `Ready: ` (the gateway's `…/api/v1`). */
  baseUrl: string;
  /** Its stdout and stderr so far (the first 4 MiB). */
  output(): string;
  /** Settles with its exit code and signal (at once if it has exited). */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /**
   * SIGTERM to the child alone, then SIGKILL to its whole process group after `graceMs` or once it
   * exited (whatever it left running). Safe to call again.
   */
  stop(graceMs?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export interface StartOptions {
  env: NodeJS.ProcessEnv;
  /** The checkout to run in (another tree's `npm start`, e.g. a benchmark's "before"); default this one. */
  cwd?: string;
  /** Default 180 s. */
  timeoutMs?: number;
  /** Default 30 s (the launcher gives each of its children 20 s before it SIGKILLs them). */
  stopGraceMs?: number;
  /** Every chunk it prints, as it comes. */
  onOutput?: (chunk: string) => void;
}

/**
 * The process groups started here and not yet stopped. They are detached (a signal to the caller's
 * group must not reach them), so they would outlive a caller that ends without stopping them (a test
 * runner ending a worker after a timed-out hook, Ctrl-C on a benchmark). Two guards:
 *
 * - when the caller exits normally, it kills what is left;
 * - a small watcher process per group (detached too, so Ctrl-C does not reach it) kills the group
 *   once the caller is gone however it ended, and exits when the group is gone. It is a process of
 *   its own because a test runner's sandbox gives tests a copy of `process` whose `exit` and signal
 *   listeners never fire.
 */
const liveGroups = new Set<number>();
let exitHooked = false;
const killPgid = (pgid: number) => {
  try {
    process.kill(-pgid, 'SIGKILL');
  } catch {
    /* the group is gone */
  }
};
const WATCHER = `
const [caller, pgid] = process.argv.slice(1).map(Number);
const alive = (pid) => { try { process.kill(pid, 0); return true; } catch (e) { return e.code === 'EPERM'; } };
setInterval(() => {
  if (!alive(-pgid)) process.exit(0);
  if (!alive(caller)) { try { process.kill(-pgid, 'SIGKILL'); } catch {} process.exit(0); }
}, 1000);
`;
function guard(pgid: number): void {
  liveGroups.add(pgid);
  if (!exitHooked) {
    exitHooked = true;
    process.once('exit', () => liveGroups.forEach(killPgid));
  }
  spawn(process.execPath, ['-e', WATCHER, String(process.pid), String(pgid)], { detached: true, stdio: 'ignore' }).unref();
}

/**
 * Spawns `command args` in its own process group and resolves once it printed `Ready: <url>`; rejects
 * (with its output) when it exits first or is not ready within the timeout, after killing its group.
 */
export function startUntilReady(command: string, args: string[], opts: StartOptions): Promise<StartedProcess> {
  const timeoutMs = opts.timeoutMs ?? 180_000;
  const child = spawn(command, args, { cwd: opts.cwd ?? REPOSITORY_ROOT, env: opts.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  if (child.pid) guard(child.pid);
  // A caller with nothing else to do may exit (its exit kills the group): the child, its pipes and
  // the start timeout do not hold it.
  child.unref();
  let out = '';
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    if (!child.pid) return resolve({ code: null, signal: null });
    child.once('exit', (code, signal) => {
      liveGroups.delete(child.pid!); // its id may be reused once its group is empty: never signalled again from the hook
      resolve({ code, signal });
    });
  });
  const killGroup = () => {
    liveGroups.delete(child.pid!);
    killPgid(child.pid!);
  };
  let stopping: Promise<{ code: number | null; signal: NodeJS.Signals | null }> | null = null;
  const stop = (graceMs = opts.stopGraceMs ?? 30_000) =>
    (stopping ??= (async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([exited, new Promise((r) => (timer = setTimeout(r, graceMs)))]);
        clearTimeout(timer);
      }
      killGroup(); // anything the group still holds
      return exited;
    })());
  return new Promise((resolve, reject) => {
    let ready = false;
    const timer = setTimeout(() => {
      killGroup();
      reject(new Error(`${command} ${args.join(' ')}: not ready within ${timeoutMs / 1000} s:\n${out.slice(-4000)}`));
    }, timeoutMs);
    const onData = (chunk: Buffer) => {
      const text = chunk.toString();
      opts.onOutput?.(text);
      if (out.length < KEPT_OUTPUT) out += text;
      const m = !ready && /Ready: (\S+)/.exec(out);
      if (m) {
        ready = true;
        clearTimeout(timer);
        resolve({ child, pid: child.pid!, baseUrl: m[1]!, output: () => out, exited, stop });
      }
    };
    // Both streams are read to their end, so a chatty child never blocks on a full pipe.
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    for (const stream of [child.stdout, child.stderr] as Array<NodeJS.ReadableStream & { unref?: () => void }>) stream.unref?.();
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      if (ready) return;
      killPgid(child.pid!); // what it started before it failed
      reject(new Error(`${command} ${args.join(' ')} exited (${code ?? signal}) before Ready:\n${out.slice(-4000)}`));
    });
  });
}

/** One process of DATA_DIR/processes.json (a replica of a registry entry). */
export interface ProcessInfo {
  name: string;
  replica: number;
  /** null while it is being restarted. */
  pid: number | null;
  url: string;
  metricsUrl: string;
  restarts: number;
}

/** DATA_DIR/processes.json as `npm run start:processes` writes it (again after every restart). */
export interface ProcessesFile {
  baseUrl: string;
  /** The embedded MongoDB server's process; null on a MONGO_URL. */
  mongodb: { pid: number } | null;
  processes: ProcessInfo[];
}

export interface RunningProcesses extends StartedProcess {
  /** Its DATA_DIR (removed by `stop()` when runProcesses made it). */
  dataDir: string;
  /** DATA_DIR/credentials.json: the development team, its keys, the MongoDB URL. */
  credentials: DevCredentials;
  /** DATA_DIR/processes.json, read now (pids change when the launcher restarts a process). */
  processes(): ProcessesFile;
}

export interface RunProcessesOptions extends Omit<StartOptions, 'env'> {
  /** Run the launcher with node directly instead of through npm (a test of the launcher's own exit). */
  direct?: boolean;
}

/**
 * `npm run start:processes` with `env` (the whole environment the launcher gets: pass `process.env`'s
 * part yourself); a fresh temporary DATA_DIR when `env` names none. Resolves once it is Ready, with
 * what it wrote to the data folder.
 */
export async function runProcesses(env: NodeJS.ProcessEnv, opts: RunProcessesOptions = {}): Promise<RunningProcesses> {
  const ownDataDir = env.DATA_DIR ? null : mkdtempSync(path.join(tmpdir(), 'helpdesk-processes-'));
  const dataDir = path.resolve(opts.cwd ?? REPOSITORY_ROOT, env.DATA_DIR || ownDataDir!);
  const [command, args] = opts.direct ? [process.execPath, ['--require', 'tsx/cjs', 'deploy/local/src/processes.ts']] : [NPM, ['run', 'start:processes']];
  let started: StartedProcess;
  try {
    started = await startUntilReady(command, args, { ...opts, env: { ...env, DATA_DIR: dataDir } });
  } catch (err) {
    if (ownDataDir) rmSync(ownDataDir, { recursive: true, force: true });
    throw err;
  }
  const stop = async (graceMs?: number) => {
    const exit = await started.stop(graceMs);
    if (ownDataDir) rmSync(ownDataDir, { recursive: true, force: true });
    return exit;
  };
  return {
    ...started,
    stop,
    dataDir,
    credentials: JSON.parse(readFileSync(path.join(dataDir, 'credentials.json'), 'utf8')) as DevCredentials,
    processes: () => JSON.parse(readFileSync(path.join(dataDir, 'processes.json'), 'utf8')) as ProcessesFile,
  };
}

/** A run's RabbitMQ names: its topic exchange (and `<exchange>.dlx`), and its queues' prefix. */
export interface AmqpNames {
  exchange: string;
  queuePrefix: string;
}

/**
 * Removes what a run declared on a shared RabbitMQ: each of `queues`' main, retry and dead queue
 * (`<prefix>.<queue>`, `.retry`, `.dead`; default every registry service's) and its two exchanges.
 * Removing what does not exist is no error.
 */
export async function deleteAmqpNames(url: string, names: AmqpNames, queues: string[] = SERVICES.map((s) => s.name)): Promise<void> {
  // Loaded here, not at the top: only the tools that clean up after a run need a RabbitMQ client.
  const { default: amqp } = await import('amqplib');
  const conn = await amqp.connect(url);
  try {
    const ch = await conn.createChannel();
    for (const queue of queues) {
      for (const suffix of ['', '.retry', '.dead']) await ch.deleteQueue(`${names.queuePrefix}.${queue}${suffix}`);
    }
    await ch.deleteExchange(names.exchange);
    await ch.deleteExchange(`${names.exchange}.dlx`);
    await ch.close();
  } finally {
    await conn.close();
  }
}
