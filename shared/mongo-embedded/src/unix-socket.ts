/**
 * The embedded server's Unix domain socket (docs/adr/0048): where it lives, how a stale one left by a
 * crashed run is replaced, and the mongodb:// URL the driver reaches it by.
 */
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';

/**
 * The longest socket path the platform accepts, in bytes: sun_path holds 108 bytes on Linux, 104 on
 * macOS and the BSDs, the terminating NUL included. Node refuses a longer one (or truncates it).
 */
export const MAX_SOCKET_PATH_BYTES = process.platform === 'linux' ? 107 : 103;

/** The driver takes a host ending in `.sock` as a socket path; every path here ends so. */
export const SOCKET_FILE = 'mongod.sock';

export function fitsSocketPath(p: string): boolean {
  return Buffer.byteLength(p) <= MAX_SOCKET_PATH_BYTES;
}

/**
 * The default socket path: `mongod.sock` in the data folder (private to its owner, and the journal's
 * lock says this process owns it), else `mongo-embedded-<port>.sock` in the temporary folder (as
 * mongod's `/tmp/mongodb-<port>.sock`), whichever fits; null when neither does.
 */
export function defaultSocketPath(dataDir: string | undefined, port: number): string | null {
  const candidates = [...(dataDir ? [path.resolve(dataDir, SOCKET_FILE)] : []), path.join(os.tmpdir(), `mongo-embedded-${port}.sock`)];
  return candidates.find(fitsSocketPath) ?? null;
}

/** The mongodb:// URL of a socket path (the driver decodes the percent-encoded host). */
export function socketUri(socketPath: string, dbName?: string): string {
  return `mongodb://${encodeURIComponent(socketPath)}/${dbName ? encodeURIComponent(dbName) : ''}?directConnection=true`;
}

function listenOnce(server: net.Server, socketPath: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/** Whether something answers on the socket (a live server) rather than a file nobody listens on. */
function answers(socketPath: string): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    const probe = net.createConnection(socketPath);
    const done = (live: boolean) => {
      probe.destroy();
      resolve(live);
    };
    probe.once('connect', () => done(true));
    probe.once('error', (e: NodeJS.ErrnoException) => done(e.code !== 'ECONNREFUSED' && e.code !== 'ENOENT'));
    probe.setTimeout(1000, () => done(true));
  });
}

/**
 * Listens on `socketPath`. A socket file nobody answers on (left by a crashed run) is removed and
 * replaced; anything else in the way (a live server, a file that is not a socket, a path too long, no
 * permission) rejects, and the caller serves TCP only.
 */
export async function listenOnSocket(server: net.Server, socketPath: string): Promise<void> {
  if (!fitsSocketPath(socketPath)) throw new Error(`socket path longer than ${MAX_SOCKET_PATH_BYTES} bytes: ${socketPath}`);
  try {
    await listenOnce(server, socketPath);
    return;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw e;
  }
  const st = fs.lstatSync(socketPath, { throwIfNoEntry: false });
  if (st && !st.isSocket()) throw new Error(`${socketPath} exists and is not a socket`);
  if (await answers(socketPath)) throw new Error(`${socketPath} is in use by a live server`);
  fs.rmSync(socketPath, { force: true });
  await listenOnce(server, socketPath);
}

/** The socket file's inode once listening, so that stop removes that file and never a newer one. */
export function socketInode(socketPath: string): number | null {
  return fs.lstatSync(socketPath, { throwIfNoEntry: false })?.ino ?? null;
}

/** Removes the socket file at stop if it is still ours (libuv unlinks it when the server closes; this covers the rest). */
export function removeSocketFile(socketPath: string, inode: number | null): void {
  try {
    const st = fs.lstatSync(socketPath, { throwIfNoEntry: false });
    if (st?.isSocket() && st.ino === inode) fs.rmSync(socketPath, { force: true });
  } catch {
    // ignore: nothing left to remove, or not ours to remove
  }
}
