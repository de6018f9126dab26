/**
 * The embedded server's Unix domain socket and its in-process connections (docs/adr/0048): the driver
 * really goes through the transport it is given (the server counts connections per transport), the
 * socket file is removed at stop, a stale one from a crashed run is replaced, and anything else in the
 * way leaves TCP only. (Not a conformance test: it is about this server's listeners.)
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { MongoClient } from 'mongodb';
import { startEmbeddedMongo, type EmbeddedMongo } from '../src';
import { inProcessHookInstalled } from '../src/in-process';
import { MAX_SOCKET_PATH_BYTES } from '../src/unix-socket';

const dirs: string[] = [];
const servers: EmbeddedMongo[] = [];
const clients: MongoClient[] = [];

function tmpDir(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'mes-'));
  dirs.push(d);
  return d;
}

async function start(opts: Parameters<typeof startEmbeddedMongo>[0]): Promise<EmbeddedMongo> {
  const s = await startEmbeddedMongo(opts);
  servers.push(s);
  return s;
}

async function connect(url: string): Promise<MongoClient> {
  const c = await MongoClient.connect(url, { serverSelectionTimeoutMS: 2000 });
  clients.push(c);
  return c;
}

/** A socket file nobody listens on, as a crashed server leaves it: a child listens, then dies of SIGKILL. */
async function staleSocket(file: string): Promise<void> {
  const child = spawn(process.execPath, ['-e', `require('net').createServer().listen(${JSON.stringify(file)}, () => process.kill(process.pid, 'SIGKILL'))`]);
  await new Promise((r) => child.once('exit', r));
  expect(fs.lstatSync(file).isSocket()).toBe(true);
}

afterEach(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => undefined);
  for (const s of servers.splice(0)) await s.close();
});
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

describe('the Unix domain socket', () => {
  it('is served next to TCP: the driver uses each through its own URL, and the server counts both', async () => {
    const server = await start({ unixSocket: true });
    expect(server.socketPath).toBe(path.join(os.tmpdir(), `mongo-embedded-${server.port}.sock`));
    expect(server.uri()).toBe(`mongodb://127.0.0.1:${server.port}/?directConnection=true`);
    expect(server.socketUri('app')).toBe(`mongodb://${encodeURIComponent(server.socketPath!)}/app?directConnection=true`);

    const overSocket = await connect(server.socketUri()!);
    await overSocket.db('app').collection('things').insertOne({ _id: 1 as never, name: 'over the socket' });
    const afterSocket = server.connectionsByTransport();
    expect(afterSocket.unix).toBeGreaterThan(0);
    expect(afterSocket.tcp).toBe(0);
    expect(afterSocket.memory).toBe(0);
    expect((await overSocket.db('admin').command({ whatsmyuri: 1 })).you).toBe(`anonymous unix socket:${server.port}`);

    const overTcp = await connect(server.uri());
    expect(await overTcp.db('app').collection('things').findOne({ _id: 1 as never })).toEqual({ _id: 1, name: 'over the socket' });
    expect(server.connectionsByTransport().tcp).toBeGreaterThan(0);
    expect(server.connectionsByTransport().unix).toBe(afterSocket.unix);
  });

  it('lives in the data folder when one is given, and its file is removed at stop', async () => {
    const dir = tmpDir();
    const server = await start({ dataDir: dir, unixSocket: true });
    const file = path.join(dir, 'mongod.sock');
    expect(server.socketPath).toBe(file);
    expect(fs.lstatSync(file).isSocket()).toBe(true);
    const c = await connect(server.socketUri()!);
    await c.db('app').collection('things').insertOne({ kept: true });
    await c.close();
    await server.close();
    expect(fs.existsSync(file)).toBe(false);

    // The journal is the same as over TCP: a restart finds the document.
    const again = await start({ dataDir: dir, unixSocket: true });
    const c2 = await connect(again.uri());
    expect(await c2.db('app').collection('things').countDocuments({ kept: true })).toBe(1);
  });

  it('replaces a stale socket file left by a crashed run', async () => {
    const dir = tmpDir();
    const file = path.join(dir, 'mongod.sock');
    await staleSocket(file);
    const server = await start({ dataDir: dir, unixSocket: true });
    expect(server.socketPath).toBe(file);
    const c = await connect(server.socketUri()!);
    expect((await c.db('admin').command({ ping: 1 })).ok).toBe(1);
    expect(server.connectionsByTransport().unix).toBeGreaterThan(0);
  });

  it('leaves a live server on the path alone and serves TCP only', async () => {
    const dir = tmpDir();
    const file = path.join(dir, 'live.sock');
    const other = net.createServer((s) => s.destroy());
    await new Promise<void>((r) => other.listen(file, () => r()));
    const logs: string[] = [];
    try {
      const server = await start({ unixSocket: file, logger: (m) => logs.push(m) });
      expect(server.socketPath).toBeNull();
      expect(server.socketUri()).toBeNull();
      expect(logs.join('\n')).toContain('in use by a live server');
      const c = await connect(server.uri());
      expect((await c.db('admin').command({ ping: 1 })).ok).toBe(1);
      await server.close();
      expect(fs.lstatSync(file).isSocket()).toBe(true);
    } finally {
      await new Promise<void>((r) => other.close(() => r()));
    }
  });

  it('leaves a file that is not a socket alone and serves TCP only', async () => {
    const dir = tmpDir();
    const file = path.join(dir, 'mongod.sock');
    fs.writeFileSync(file, 'not a socket');
    const logs: string[] = [];
    const server = await start({ dataDir: dir, unixSocket: true, logger: (m) => logs.push(m) });
    expect(server.socketPath).toBeNull();
    expect(logs.join('\n')).toContain('is not a socket');
    await server.close();
    expect(fs.readFileSync(file, 'utf8')).toBe('not a socket');
  });

  it('falls back to TCP only when the path is too long for sun_path', async () => {
    const long = path.join(tmpDir(), `${'x'.repeat(MAX_SOCKET_PATH_BYTES)}.sock`);
    const logs: string[] = [];
    const server = await start({ unixSocket: long, logger: (m) => logs.push(m) });
    expect(server.socketPath).toBeNull();
    expect(logs.join('\n')).toContain(`longer than ${MAX_SOCKET_PATH_BYTES} bytes`);
    const c = await connect(server.uri());
    expect((await c.db('admin').command({ ping: 1 })).ok).toBe(1);
  });

  it('uses the temporary folder when the data folder\'s path is too long (as on macOS, where sun_path is 104 bytes)', async () => {
    let dir = tmpDir();
    while (Buffer.byteLength(path.join(dir, 'mongod.sock')) <= MAX_SOCKET_PATH_BYTES) dir = path.join(dir, 'deeper-folder');
    const server = await start({ dataDir: dir, unixSocket: true });
    expect(server.socketPath).toBe(path.join(os.tmpdir(), `mongo-embedded-${server.port}.sock`));
    await server.close();
    expect(fs.existsSync(path.join(os.tmpdir(), `mongo-embedded-${server.port}.sock`))).toBe(false);
  });
});

describe('in-process connections (inProcessClients)', () => {
  it('serve the driver in memory through the socket URL; a plain connection to the path still gets the real socket', async () => {
    const dir = tmpDir();
    const server = await start({ dataDir: dir, unixSocket: true, inProcessClients: true });
    expect(inProcessHookInstalled()).toBe(true);
    const c = await connect(server.socketUri()!);
    const things = c.db('app').collection('things');
    await things.insertMany(Array.from({ length: 100 }, (_, i) => ({ i })));
    expect(await things.countDocuments({})).toBe(100);
    const counts = server.connectionsByTransport();
    expect(counts.memory).toBeGreaterThan(0);
    expect(counts).toMatchObject({ tcp: 0, unix: 0 });

    // Not the driver's options form: the real socket.
    const raw = net.createConnection(server.socketPath!);
    await new Promise<void>((resolve, reject) => raw.once('connect', resolve).once('error', reject));
    raw.destroy();
    expect(server.connectionsByTransport().unix).toBe(1);

    await c.close();
    await server.close();
    expect(inProcessHookInstalled()).toBe(false);
    expect(fs.existsSync(path.join(dir, 'mongod.sock'))).toBe(false);
  });

  it('carry documents of several MiB both ways, and many commands at once', async () => {
    const server = await start({ unixSocket: true, inProcessClients: true });
    const c = await connect(server.socketUri()!);
    const blobs = c.db('app').collection('blobs');
    const big = 'z'.repeat(6 * 1024 * 1024);
    await blobs.insertOne({ _id: 'big' as never, big });
    expect((await blobs.findOne({ _id: 'big' as never }))?.big).toBe(big);
    await Promise.all(Array.from({ length: 200 }, (_, i) => blobs.insertOne({ i })));
    expect(await blobs.countDocuments({ i: { $gte: 0 } })).toBe(200);
    expect(server.connectionsByTransport()).toMatchObject({ tcp: 0, unix: 0 });
  });

  it('close at both ends when the driver closes them (the server\'s open connections go back down)', async () => {
    const server = await start({ unixSocket: true, inProcessClients: true });
    const tool = await connect(server.uri());
    const open = async () => (await tool.db('admin').command({ serverStatus: 1 })).connections.current as number;
    const before = await open();
    const c = await MongoClient.connect(server.socketUri()!);
    await c.db('app').collection('things').insertOne({ x: 1 });
    expect(await open()).toBeGreaterThan(before);
    await c.close();
    let now = await open();
    for (let i = 0; i < 20 && now !== before; i++) {
      await new Promise((r) => setTimeout(r, 25));
      now = await open();
    }
    expect(now).toBe(before);
  });

  it('close with the server: commands fail as against a stopped server', async () => {
    const server = await start({ unixSocket: true, inProcessClients: true });
    const c = await connect(server.socketUri()!);
    expect((await c.db('admin').command({ ping: 1 })).ok).toBe(1);
    await server.close();
    await expect(c.db('admin').command({ ping: 1 }, { timeoutMS: 1500 })).rejects.toThrow();
  });

  it('time out when idle as a socket does (setTimeout)', async () => {
    const server = await start({ unixSocket: true, inProcessClients: true });
    const sock = net.createConnection({ path: server.socketPath! });
    const timedOut = new Promise<number>((resolve) => {
      const t0 = Date.now();
      sock.setTimeout(100, () => resolve(Date.now() - t0));
    });
    expect(await timedOut).toBeGreaterThanOrEqual(90);
    sock.destroy();
    expect(server.connectionsByTransport()).toMatchObject({ memory: 1, unix: 0 });
  });

  it('two servers in one process each serve their own path', async () => {
    const a = await start({ unixSocket: true, inProcessClients: true });
    const b = await start({ unixSocket: true, inProcessClients: true });
    const ca = await connect(a.socketUri()!);
    const cb = await connect(b.socketUri()!);
    await ca.db('app').collection('where').insertOne({ server: 'a' });
    await cb.db('app').collection('where').insertOne({ server: 'b' });
    expect(await ca.db('app').collection('where').distinct('server')).toEqual(['a']);
    expect(await cb.db('app').collection('where').distinct('server')).toEqual(['b']);
    await ca.close();
    await a.close();
    expect(inProcessHookInstalled()).toBe(true);
    expect((await cb.db('admin').command({ ping: 1 })).ok).toBe(1);
  });
});
