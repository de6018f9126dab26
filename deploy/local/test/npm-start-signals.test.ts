import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { cleanup, descendants, isRunning, localEnv, npmStart, portOf, tempDir, tryConnect, waitFor, type Started } from './processes';

// `npm start` as a process manager or container runtime drives it: a signal goes to the npm process
// only, not to its process group. The platform must stop gracefully with it (port and data folder
// freed, npm reporting the platform's exit code), and must not outlive an npm killed outright.
afterAll(cleanup);

function mongoPortOf(s: Started): number {
  const m = s.output().match(/MongoDB\s+mongodb:\/\/127\.0\.0\.1:(\d+)\//);
  if (!m) throw new Error(`no MongoDB URL printed:\n${s.output()}`);
  return Number(m[1]);
}

function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
    }),
  ]);
}

/** Signals the npm process alone and checks that the whole tree it started is gone and everything is released. */
async function stopAndCheck(s: Started, dataDir: string, signal: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  const tree = [s.pid, ...descendants(s.pid)];
  expect(tree.length).toBeGreaterThan(1); // npm and the platform's node (and a shell, if any)
  const ports = [portOf(s.baseUrl), mongoPortOf(s)];
  process.kill(s.pid, signal);
  const exit = await within(s.exited, 30_000, `npm to exit after ${signal}`);
  await waitFor(`every process of the npm start tree (${tree.join(', ')}) to exit`, () => tree.every((p) => !isRunning(p)), 15_000);
  for (const port of ports) expect(await tryConnect(port)).toBe('ECONNREFUSED');
  // The embedded MongoDB closed its journal (a graceful stop): the data folder's lock is released.
  expect(existsSync(path.join(dataDir, 'mongo', 'mongod.lock'))).toBe(false);
  return exit;
}

async function whoami(s: Started, dataDir: string): Promise<number> {
  const creds = JSON.parse(readFileSync(path.join(dataDir, 'credentials.json'), 'utf8'));
  const res = await fetch(`${s.baseUrl}/auth/whoami`, { headers: { authorization: `Bearer ${creds.keys.sk_test}` } });
  return res.status;
}

test('SIGTERM or SIGINT to the npm process stops the platform gracefully and npm reports its exit code', async () => {
  const dataDir = tempDir('helpdesk-npm-signals-');
  const first = await npmStart(localEnv(dataDir));
  expect(await whoami(first, dataDir)).toBe(200);
  expect(await stopAndCheck(first, dataDir, 'SIGTERM')).toEqual({ code: 0, signal: null });

  // The data folder and ports are free: the platform starts again on the same folder.
  const second = await npmStart(localEnv(dataDir));
  expect(await whoami(second, dataDir)).toBe(200);
  expect(await stopAndCheck(second, dataDir, 'SIGINT')).toEqual({ code: 0, signal: null });
}, 180_000);

test('when npm itself is killed (SIGKILL), the platform notices and stops on its own', async () => {
  const dataDir = tempDir('helpdesk-npm-kill-');
  const started = await npmStart(localEnv(dataDir));
  expect(await whoami(started, dataDir)).toBe(200);
  expect(await stopAndCheck(started, dataDir, 'SIGKILL')).toEqual({ code: null, signal: 'SIGKILL' });

  const again = await npmStart(localEnv(dataDir));
  expect(await whoami(again, dataDir)).toBe(200);
  expect(await stopAndCheck(again, dataDir, 'SIGTERM')).toEqual({ code: 0, signal: null });
}, 180_000);
