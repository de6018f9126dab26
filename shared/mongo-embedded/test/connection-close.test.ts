/**
 * Transactions of a closed connection (not conformance: a real mongod keeps them until its
 * transactionLifetimeLimitSeconds). The embedded server aborts them as soon as the connection that
 * last used their session closes, so a restarted consumer does not wait on a dead process's
 * documents (see Core.connectionClosed).
 */
import { ChildProcess, spawn } from 'node:child_process';
import net from 'node:net';
import * as path from 'node:path';
import { deserialize, Long, serialize, UUID } from 'bson';
import { Collection, MongoClient, MongoServerError } from 'mongodb';
import { EmbeddedMongo, startEmbeddedMongo } from '../src';

type Doc = { _id: string; v: string };

const CHILD = path.join(__dirname, 'open-transaction-child.ts');
const CLI = path.join(__dirname, '..', 'src', 'cli.ts');
/** What "at once" means here; the lifetime limit is the default 60 s in these tests. */
const PROMPTLY_MS = 2_000;

/** Closed after each test, also when it failed half-way. */
const opened: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of opened.splice(0).reverse()) await close().catch(() => undefined);
});

async function server(opts: Parameters<typeof startEmbeddedMongo>[0] = {}): Promise<EmbeddedMongo> {
  const m = await startEmbeddedMongo(opts);
  opened.push(() => m.close());
  return m;
}

async function connect(uri: string): Promise<MongoClient> {
  const c = await MongoClient.connect(uri);
  opened.push(() => c.close());
  return c;
}

/** `p`, or a failure naming `what` after `ms` (rather than jest's timeout after the lifetime limit). */
function within<T>(ms: number, what: string, p: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took more than ${ms} ms`)), ms);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

/** Spawns `script` with tsx and resolves once it printed a line starting with `ready`. */
function spawnUntil(args: string[], ready: string): Promise<{ child: ChildProcess; line: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', ...args], { stdio: ['ignore', 'pipe', 'inherit'], cwd: path.join(__dirname, '..') });
    opened.push(async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    });
    let out = '';
    child.stdout!.on('data', (d) => {
      out += String(d);
      const line = out.split('\n').find((l) => l.startsWith(ready));
      if (line) resolve({ child, line: line.trim() });
    });
    child.on('exit', (code) => reject(new Error(`child exited with ${code} before printing ${ready}: ${out}`)));
    setTimeout(() => reject(new Error(`child did not print ${ready} in time`)), 20_000).unref();
  });
}

function killed(child: ChildProcess): Promise<void> {
  return new Promise((r) => {
    if (child.exitCode !== null || child.signalCode !== null) return r();
    child.once('exit', () => r());
  });
}

/**
 * The checks after a transaction's connection died: `x` is free at once, outside a transaction and
 * inside one, and neither it nor `y` shows the dead transaction's writes.
 */
async function expectReleased(docs: Collection<Doc>, client: MongoClient): Promise<void> {
  // Outside a transaction this write would wait for the transaction holding x to end.
  await within(PROMPTLY_MS, 'a write to x outside a transaction', docs.updateOne({ _id: 'x' }, { $set: { v: 'after' } }));
  const session = client.startSession();
  try {
    // Inside one it would get WriteConflict, and withTransaction would retry until its own 120 s.
    await within(
      PROMPTLY_MS,
      'a transaction writing x',
      session.withTransaction(async () => {
        await docs.updateOne({ _id: 'x' }, { $set: { v: 'after in a transaction' } }, { session });
        await docs.insertOne({ _id: 'y', v: 'mine' }, { session });
      }),
    );
  } finally {
    await session.endSession();
  }
  expect(await docs.find().sort({ _id: 1 }).toArray()).toEqual([
    { _id: 'x', v: 'after in a transaction' },
    { _id: 'y', v: 'mine' },
  ]);
}

/** Inserts x and checks that a transaction of `client` conflicts on it while the other transaction lives. */
async function expectHeld(docs: Collection<Doc>, client: MongoClient): Promise<void> {
  const session = client.startSession();
  session.startTransaction();
  const e = await docs.updateOne({ _id: 'x' }, { $set: { v: 'conflicting' } }, { session }).catch((x: MongoServerError) => x);
  expect((e as MongoServerError).code).toBe(112);
  await session.abortTransaction().catch(() => undefined);
  await session.endSession();
}

describe('a closed connection', () => {
  it.each(['tcp', 'unix'] as const)('of a process killed with SIGKILL mid-transaction (%s): its writes are gone and its documents free at once', async (transport) => {
    const m = await server({ unixSocket: transport === 'unix' });
    const uri = transport === 'unix' ? m.socketUri('close')! : m.uri('close');
    expect(uri).toBeTruthy();
    const client = await connect(m.uri('close'));
    const docs = client.db('close').collection<Doc>('docs');
    await docs.insertOne({ _id: 'x', v: 'committed' });

    const { child } = await spawnUntil([CHILD, uri], 'in transaction');
    await expectHeld(docs, client);
    child.kill('SIGKILL');
    await killed(child);
    await expectReleased(docs, client);
  });

  it('of an in-process client whose connections are destroyed mid-transaction: the same', async () => {
    const m = await server({ unixSocket: true, inProcessClients: true });
    const client = await connect(m.uri('close'));
    const docs = client.db('close').collection<Doc>('docs');
    await docs.insertOne({ _id: 'x', v: 'committed' });

    // The dying client's connections, as the driver opens them (it calls net.createConnection, which
    // the server wraps for in-process connections: this wraps that).
    const original = net.createConnection;
    const sockets: net.Socket[] = [];
    net.createConnection = function (this: unknown, ...args: unknown[]) {
      const s = (original as (...a: unknown[]) => net.Socket).apply(this, args);
      sockets.push(s);
      return s;
    } as typeof net.createConnection;
    try {
      const dying = await connect(m.socketUri('close')!);
      const session = dying.startSession();
      session.startTransaction();
      const theirs = dying.db('close').collection<Doc>('docs');
      await theirs.updateOne({ _id: 'x' }, { $set: { v: 'uncommitted' } }, { session });
      await theirs.insertOne({ _id: 'y', v: 'uncommitted' }, { session });
    } finally {
      net.createConnection = original;
    }
    expect(m.connectionsByTransport().memory).toBeGreaterThan(0);
    await expectHeld(docs, client);

    for (const s of sockets) s.destroy();
    await expectReleased(docs, client);
  });
});

/** A bare wire connection: commands in order, one reply each, so a test decides which connection a session uses. */
class WireConnection {
  private buf = Buffer.alloc(0);
  private readonly replies: ((reply: Record<string, any>) => void)[] = [];
  private requestId = 0;

  private constructor(readonly socket: net.Socket) {
    socket.on('data', (d: Buffer) => {
      this.buf = Buffer.concat([this.buf, d]);
      while (this.buf.length >= 4 && this.buf.length >= this.buf.readInt32LE(0)) {
        const len = this.buf.readInt32LE(0);
        // OP_MSG: 16-byte header, flags, kind 0, the body.
        this.replies.shift()?.(deserialize(this.buf.subarray(21, len)));
        this.buf = this.buf.subarray(len);
      }
    });
  }

  /** Over TCP to `port`, or to the socket `path` (in process when the server serves it so). */
  static open(to: number | string): Promise<WireConnection> {
    return new Promise((resolve, reject) => {
      const where = typeof to === 'number' ? { port: to, host: '127.0.0.1' } : { path: to };
      const socket = net.createConnection(where, () => resolve(new WireConnection(socket)));
      socket.once('error', reject);
      opened.push(async () => socket.destroy());
    });
  }

  command(body: Record<string, unknown>): Promise<Record<string, any>> {
    const reply = new Promise<Record<string, any>>((r) => this.replies.push(r));
    this.socket.write(this.message(body));
    return reply;
  }

  /** Sends `body` and destroys the connection once the bytes are written, not waiting for the reply. */
  sendAndDestroy(body: Record<string, unknown>): void {
    this.socket.write(this.message(body), () => this.socket.destroy());
  }

  private message(body: Record<string, unknown>): Buffer {
    const payload = Buffer.from(serialize(body));
    const head = Buffer.alloc(21);
    head.writeInt32LE(21 + payload.length, 0);
    head.writeInt32LE(++this.requestId, 4);
    head.writeInt32LE(2013, 12);
    return Buffer.concat([head, payload]);
  }
}

describe('a session used over two connections', () => {
  let m: EmbeddedMongo;
  let client: MongoClient;
  let docs: Collection<Doc>;
  const lsid = () => ({ id: new UUID() });
  /** A statement of transaction 1 of session `id`, as a driver sends it. */
  const inTxn = (id: { id: UUID }, cmd: Record<string, unknown>, start = false) => ({
    ...cmd,
    $db: 'close',
    lsid: id,
    txnNumber: Long.fromNumber(1),
    autocommit: false,
    ...(start ? { startTransaction: true } : {}),
  });
  const insert = (doc: Doc) => ({ insert: 'docs', documents: [doc] });

  beforeEach(async () => {
    m = await server({ unixSocket: true, inProcessClients: true });
    client = await connect(m.uri('close'));
    docs = client.db('close').collection<Doc>('docs');
    await docs.insertOne({ _id: 'x', v: 'committed' });
  });

  /** Closes a connection with `close` (by default destroys `conn`) and waits until the server has seen it close. */
  async function closeAndWait(conn: WireConnection, close: () => void = () => conn.socket.destroy()): Promise<void> {
    const current = async () => (await client.db('admin').command({ serverStatus: 1 })).connections.current as number;
    const before = await current();
    close();
    await within(PROMPTLY_MS, 'the server seeing the close', (async () => {
      while ((await current()) !== before - 1) await new Promise((r) => setTimeout(r, 10));
    })());
  }

  it('lives on when a connection closes after another one used the session since', async () => {
    const [one, two] = [await WireConnection.open(m.port), await WireConnection.open(m.port)];
    const id = lsid();
    expect((await one.command(inTxn(id, { update: 'docs', updates: [{ q: { _id: 'x' }, u: { $set: { v: 'both' } } }] }, true))).ok).toBe(1);
    expect((await two.command(inTxn(id, insert({ _id: 'y', v: 'both' })))).ok).toBe(1);
    await closeAndWait(one);
    expect(await two.command(inTxn(id, { commitTransaction: 1 }))).toMatchObject({ ok: 1 });
    expect(await docs.find().sort({ _id: 1 }).toArray()).toEqual([
      { _id: 'x', v: 'both' },
      { _id: 'y', v: 'both' },
    ]);
  });

  it('is aborted when the connection that used it last closes, though another one used it before', async () => {
    const [one, two] = [await WireConnection.open(m.port), await WireConnection.open(m.port)];
    const id = lsid();
    await one.command(inTxn(id, { update: 'docs', updates: [{ q: { _id: 'x' }, u: { $set: { v: 'gone' } } }] }, true));
    await two.command(inTxn(id, insert({ _id: 'y', v: 'gone' })));
    expect((await one.command(inTxn(id, { find: 'docs', filter: {} }))).cursor.firstBatch).toHaveLength(2);
    await closeAndWait(one);
    expect(await two.command(inTxn(id, { commitTransaction: 1 }))).toMatchObject({ ok: 0, code: 251 });
    expect(await docs.find().toArray()).toEqual([{ _id: 'x', v: 'committed' }]);
  });

  // In process, the close reaches the server before the statement runs (the server chains its
  // commands on promises, the stream ends on process.nextTick): Core.run aborts it after it ran.
  it.each(['tcp', 'memory'] as const)('is aborted when its connection closes right after sending a statement, whichever runs first (%s)', async (transport) => {
    const one = await WireConnection.open(transport === 'tcp' ? m.port : m.socketPath!);
    await closeAndWait(one, () => one.sendAndDestroy(inTxn(lsid(), { update: 'docs', updates: [{ q: { _id: 'x' }, u: { $set: { v: 'gone' } } }] }, true)));
    await within(PROMPTLY_MS, 'a write to x', docs.updateOne({ _id: 'x' }, { $set: { v: 'after' } }));
    expect(await docs.find().toArray()).toEqual([{ _id: 'x', v: 'after' }]);
  });
});

describe('the transaction lifetime limit', () => {
  it('is 60 s by default, set with transactionLifetimeMs, reported in seconds, and refused out of range', async () => {
    const param = async (m: EmbeddedMongo) =>
      (await (await connect(m.uri())).db('admin').command({ getParameter: 1, transactionLifetimeLimitSeconds: 1 })).transactionLifetimeLimitSeconds;
    expect(await param(await server())).toBe(60);
    expect(await param(await server({ transactionLifetimeMs: 10_000 }))).toBe(10);
    for (const bad of [0, -1, NaN, 2 ** 31]) await expect(startEmbeddedMongo({ transactionLifetimeMs: bad })).rejects.toThrow(RangeError);
  });

  it('is set on the command line with --transaction-lifetime-limit-seconds', async () => {
    const { child, line } = await spawnUntil([CLI, '--port', '0', '--quiet', '--transaction-lifetime-limit-seconds', '10'], 'mongodb://');
    const client = await MongoClient.connect(line);
    try {
      const reply = await client.db('admin').command({ getParameter: 1, transactionLifetimeLimitSeconds: 1 });
      expect(reply.transactionLifetimeLimitSeconds).toBe(10);
    } finally {
      await client.close();
    }
    child.kill('SIGTERM');
    await killed(child);
  });
});
