/**
 * The server: framing, per-connection ordering, lifecycle, TTL monitor and journal wiring. It listens
 * on TCP, and optionally also on a Unix domain socket (docs/adr/0048), both served alike.
 */
import * as net from 'node:net';
import { serialize } from 'bson';
import { Core, toErrorReply } from './commands';
import { checkMaxBSONDepth, DEFAULT_MAX_BSON_DEPTH } from './depth';
import { err } from './errors';
import { Journal } from './journal';
import { Stats } from './storage';
import { installDriverDirect } from './driver-direct';
import { commandBody } from './direct-command';
import { DIRECT_COMMANDS, serveInProcess, type DirectCommands, type DirectReply } from './in-process';
import { defaultSocketPath, listenOnSocket, removeSocketFile, socketInode, socketUri } from './unix-socket';
import { encodeReply, parseMessage, ProtocolError, Request } from './wire';

export interface EmbeddedMongoOptions {
  /** TCP port; 0 (default) picks any free port. */
  port?: number;
  /** Interface to bind; default 127.0.0.1. */
  host?: string;
  /** Data folder for the journal and snapshots; absent = in memory only. */
  dataDir?: string;
  logger?: (msg: string) => void;
  /** How often expired TTL documents are removed (MongoDB: 60 s). Default 60000. */
  ttlMonitorIntervalMs?: number;
  /** Replica set name reported by hello. Default "embedded". */
  replicaSetName?: string;
  /** Compact the journal once it exceeds max(this, 2 x snapshot size). Default 8 MiB. */
  journalCompactMinBytes?: number;
  /**
   * Abort transactions left open longer than this, in ms (MongoDB's transactionLifetimeLimitSeconds:
   * 60 s, the default), 1 to 2^31 − 1. `getParameter` reports it in seconds. A transaction whose
   * connection closes is aborted at once, whatever this is (see Core.connectionClosed).
   */
  transactionLifetimeMs?: number;
  /**
   * MongoDB's `maxBSONDepth` startup parameter (default 200, 21 to 250): commands may nest
   * maxBSONDepth + 1 levels and stored documents maxBSONDepth − 20 (180 by default). 120 enforces the
   * 100 levels MongoDB's manual documents. See depth.ts.
   */
  maxBSONDepth?: number;
  /**
   * Also listen on a Unix domain socket (docs/adr/0048): a path ending in `.sock`, or true for the
   * default (`mongod.sock` in dataDir, else `mongo-embedded-<port>.sock` in os.tmpdir(), whichever
   * fits in sun_path). A socket file left by a crashed run is replaced. When it cannot be used (path
   * too long, a live server on it, not a socket, no permission) the server logs why and serves TCP
   * only: `socketPath` is then null. TCP is always served.
   */
  unixSocket?: string | boolean;
  /**
   * Connections from this same process to the Unix domain socket's URL (`socketUri()`) skip the
   * kernel: the driver's `net.createConnection` for that path gets an in-memory stream (see
   * in-process.ts, docs/adr/0048). Needs `unixSocket`; other processes still use the real socket.
   */
  inProcessClients?: boolean;
  /**
   * With `inProcessClients`: the driver hands its commands over as objects instead of BSON messages
   * (docs/adr/0052). Default true; false keeps the wire format (benchmarks compare the two).
   */
  directCommands?: boolean;
}

/** Connections accepted since start, per transport. */
export interface TransportCounts {
  tcp: number;
  unix: number;
  /** In-process connections to the socket's URL (`inProcessClients`). */
  memory: number;
}

export interface EmbeddedMongo {
  readonly port: number;
  readonly host: string;
  /** The Unix domain socket's path, when it listens on one (see `unixSocket`); null otherwise. */
  readonly socketPath: string | null;
  /** mongodb:// URL (TCP) that mongoose.connect / createConnection accept as is. */
  uri(dbName?: string): string;
  /** The same over the Unix domain socket (`mongodb://%2F…%2Fmongod.sock/`); null when there is none. */
  socketUri(dbName?: string): string | null;
  /** Connections accepted since start, per transport. */
  connectionsByTransport(): TransportCounts;
  /**
   * Commands served on in-process connections since start: handed over as objects (`direct`,
   * docs/adr/0052) or as wire messages (`wire`: the driver's handshake, a value only BSON can encode);
   * `replyObjects`: direct commands whose reply was handed back as an object too (docs/adr/0077).
   */
  inProcessCommands(): { direct: number; wire: number; replyObjects: number };
  /** Flush the journal and close every socket. */
  close(): Promise<void>;
  /** Cumulative counters: documents and index keys examined, scans, commands. */
  stats(): Stats;
  /** Run the TTL monitor now; resolves with the number of documents removed. */
  runTtlMonitor(): Promise<number>;
  /** Compact the journal now (no-op in memory). */
  compact(): Promise<void>;
  /** Journal and snapshot sizes in bytes (0 in memory). */
  storageSize(): { journalBytes: number; snapshotBytes: number };
}

const MAX_MESSAGE = 48_000_000 + 16 * 1024 * 1024;

export async function startEmbeddedMongo(opts: EmbeddedMongoOptions = {}): Promise<EmbeddedMongo> {
  const host = opts.host ?? '127.0.0.1';
  const log = opts.logger;
  let port = opts.port ?? 0;
  const maxBSONDepth = checkMaxBSONDepth(opts.maxBSONDepth ?? DEFAULT_MAX_BSON_DEPTH);
  const core = new Core({
    maxBSONDepth,
    host,
    port: () => port,
    setName: opts.replicaSetName ?? 'embedded',
    logger: log,
    transactionLifetimeMs: opts.transactionLifetimeMs,
  });
  let journal: Journal | null = null;

  const connections: ConnectionsShared = {
    core,
    log,
    maxBSONDepth,
    directCommands: opts.directCommands !== false,
    port: () => port,
    sockets: new Set<net.Socket>(),
    opened: 0,
    accepted: { tcp: 0, unix: 0, memory: 0 },
    inProcessCommands: { direct: 0, wire: 0, replyObjects: 0 },
  };
  const { sockets, accepted, inProcessCommands } = connections;
  const onConnection = (sock: net.Socket, transport: keyof TransportCounts) => serveConnection(connections, sock, transport);
  const server = net.createServer((sock) => onConnection(sock, 'tcp'));
  const unixServer = opts.unixSocket ? net.createServer((sock) => onConnection(sock, 'unix')) : null;
  let socketPath: string | null = null;
  let socketIno: number | null = null;
  let stopInProcess: (() => void) | null = null;

  // Everything opened from here on is released again if the start fails part-way (the port is
  // taken, the folder is locked or unreadable…): the caller may retry on the same folder, e.g. on
  // another port, in this same process.
  try {
    if (opts.dataDir) {
      journal = await Journal.open(opts.dataDir, core.engine, { compactMinBytes: opts.journalCompactMinBytes, logger: log });
      const j = journal;
      core.durable = () => j.flush();
    }
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    port = (server.address() as net.AddressInfo).port;
    if (unixServer) {
      const unix = await listenOnUnixSocket(unixServer, opts, port, (sock) => onConnection(sock, 'memory'));
      if (unix) ({ socketPath, socketIno, stopInProcess } = unix);
    }
  } catch (e) {
    if (server.listening) await new Promise<void>((r) => server.close(() => r()));
    if (unixServer?.listening) await new Promise<void>((r) => unixServer.close(() => r()));
    core.abortAll();
    if (journal) {
      await journal.close().catch((closeErr: Error) => log?.(`closing the journal after a failed start: ${closeErr.message}`));
    }
    throw e;
  }
  log?.(`mongo-embedded listening on mongodb://${host}:${port}/${socketPath ? ` and ${socketPath}` : ''} (${opts.dataDir ? `data in ${opts.dataDir}` : 'in memory'})`);

  const runTtl = async (): Promise<number> => {
    const n = core.ttlSweep();
    if (n && journal) await journal.flush();
    return n;
  };
  const ttlTimer = setInterval(() => {
    runTtl().catch((e) => log?.(`TTL monitor failed: ${(e as Error).message}`));
  }, opts.ttlMonitorIntervalMs ?? 60_000);
  ttlTimer.unref();
  const sweepTimer = setInterval(() => core.sweep(), 60_000);
  sweepTimer.unref();

  let closing: Promise<void> | null = null;
  const hostForUri = host.includes(':') ? `[${host}]` : host === '0.0.0.0' ? '127.0.0.1' : host;
  return {
    get port() {
      return port;
    },
    host,
    get socketPath() {
      return socketPath;
    },
    uri(dbName?: string) {
      return `mongodb://${hostForUri}:${port}/${dbName ? encodeURIComponent(dbName) : ''}?directConnection=true`;
    },
    socketUri: (dbName?: string) => (socketPath ? socketUri(socketPath, dbName) : null),
    connectionsByTransport: () => ({ ...accepted }),
    inProcessCommands: () => ({ ...inProcessCommands }),
    stats: () => ({ ...core.engine.stats }),
    runTtlMonitor: runTtl,
    compact: async () => {
      if (journal) await journal.compactNow();
    },
    storageSize: () => journal?.sizes() ?? { journalBytes: 0, snapshotBytes: 0 },
    close() {
      if (closing) return closing;
      closing = (async () => {
        clearInterval(ttlTimer);
        clearInterval(sweepTimer);
        stopInProcess?.();
        const closedServer = new Promise<void>((r) => server.close(() => r()));
        const closedUnix = unixServer?.listening ? new Promise<void>((r) => unixServer.close(() => r())) : null;
        for (const s of sockets) s.destroy();
        sockets.clear();
        core.abortAll();
        await closedServer;
        if (closedUnix) await closedUnix;
        if (socketPath) removeSocketFile(socketPath, socketIno);
        if (journal) await journal.close();
      })();
      return closing;
    },
  };
}

/**
 * Listens on the Unix domain socket `opts` ask for, and serves this process's connections to it in
 * memory when they ask that too (`inProcessClients`). Null, after logging why, when there is no
 * usable socket: the server then serves TCP only.
 */
async function listenOnUnixSocket(
  unixServer: net.Server,
  opts: EmbeddedMongoOptions,
  port: number,
  onMemoryConnection: (sock: net.Socket) => void,
): Promise<{ socketPath: string; socketIno: number | null; stopInProcess: (() => void) | null } | null> {
  const log = opts.logger;
  const wanted = typeof opts.unixSocket === 'string' ? opts.unixSocket : defaultSocketPath(opts.dataDir, port);
  if (!wanted) {
    log?.(`no Unix domain socket: no default path fits in sun_path; TCP only`);
    return null;
  }
  try {
    await listenOnSocket(unixServer, wanted);
    const socketIno = socketInode(wanted);
    let stopInProcess: (() => void) | null = null;
    if (opts.inProcessClients) {
      if (opts.directCommands !== false) installDriverDirect(log);
      stopInProcess = serveInProcess(wanted, onMemoryConnection);
    }
    return { socketPath: wanted, socketIno, stopInProcess };
  } catch (e) {
    log?.(`no Unix domain socket at ${wanted} (${(e as Error).message}); TCP only`);
    return null;
  }
}

/** What the connections of one server share. */
interface ConnectionsShared {
  readonly core: Core;
  readonly log: ((msg: string) => void) | undefined;
  readonly maxBSONDepth: number;
  /** In-process connections take commands as objects too (docs/adr/0052). */
  readonly directCommands: boolean;
  /** The server's TCP port, once it listens. */
  readonly port: () => number;
  /** The open connections, closed with the server. */
  readonly sockets: Set<net.Socket>;
  /** Connections opened since start: the last one's id. */
  opened: number;
  readonly accepted: TransportCounts;
  readonly inProcessCommands: { direct: number; wire: number; replyObjects: number };
}

/** Serves one accepted connection: its commands run one after another, in the order they arrive. */
function serveConnection(shared: ConnectionsShared, sock: net.Socket, transport: keyof TransportCounts): void {
  const { core, log, maxBSONDepth, inProcessCommands } = shared;
  shared.sockets.add(sock);
  shared.accepted[transport]++;
  const connectionId = ++shared.opened;
  core.connectionOpened(connectionId);
  // mongod answers whatsmyuri on its socket with "anonymous unix socket:<port>".
  const remote = transport === 'tcp' ? `${sock.remoteAddress}:${sock.remotePort}` : `anonymous unix socket:${shared.port()}`;
  if (transport === 'tcp') sock.setNoDelay(true);
  let queue: Promise<void> = Promise.resolve();
  let closed = false;

  /** One command's reply on this connection: its error reply when it throws. */
  const run = async (body: Record<string, unknown>) => {
    try {
      return await core.run(body, connectionId, remote);
    } catch (e) {
      return toErrorReply(e);
    }
  };

  const handle = async (msg: Buffer) => {
    if (transport === 'memory') inProcessCommands.wire++;
    let req: Request;
    try {
      req = parseMessage(msg, maxBSONDepth);
    } catch (e) {
      log?.(`protocol error from ${remote}: ${(e as Error).message}`);
      sock.destroy();
      return;
    }
    let reply;
    const body = req.body;
    if (body.$unsupportedOpCode !== undefined) reply = err(5739101, `Unsupported opCode ${body.$unsupportedOpCode}`).toReply();
    else if (body.$unsupportedLegacyQuery !== undefined) reply = err(5739101, 'OP_QUERY is only supported for commands on $cmd').toReply();
    else if (body.$overflow !== undefined) reply = err(15, body.$overflow).toReply();
    else reply = await run(body);
    if (req.moreToCome || closed) return;
    sock.write(encodeReply(req, reply));
  };

  if (transport === 'memory' && shared.directCommands) {
    // The in-process driver's commands as objects (docs/adr/0052), in order with the wire's on this
    // connection; undefined once it is closed (the driver then takes the wire, and sees it closed).
    const direct: DirectCommands = (body, moreToCome, asObject) => {
      const answer = queue.then(async () => {
        if (closed) return undefined;
        inProcessCommands.direct++;
        const reply = await run(body);
        if (moreToCome) return null;
        const object = asObject ? replyObject(reply) : null;
        if (!object) return serialize(reply);
        inProcessCommands.replyObjects++;
        return object;
      });
      queue = answer.then(
        () => undefined,
        (e) => log?.(`connection error: ${(e as Error).message}`),
      );
      return answer;
    };
    (sock as unknown as { [DIRECT_COMMANDS]?: DirectCommands })[DIRECT_COMMANDS] = direct;
  }
  sock.on(
    'data',
    messageFramer(
      (msg) => {
        queue = queue.then(() => handle(msg)).catch((e) => log?.(`connection error: ${(e as Error).message}`));
      },
      (len) => {
        log?.(`bad message length ${len} from ${remote}`);
        sock.destroy();
      },
    ),
  );
  const done = () => {
    if (closed) return;
    closed = true;
    shared.sockets.delete(sock);
    // Aborts the transactions only this connection was running (see Core.connectionClosed).
    core.connectionClosed(connectionId);
  };
  sock.on('close', done);
  sock.on('error', done);
}

/**
 * A cursor's reply as an object for the in-process driver (docs/adr/0077), or null when it must be
 * BSON: an error, a reply without a first batch, or a value only BSON encodes exactly (the copy
 * refuses it, as a command's does).
 */
function replyObject(reply: Record<string, unknown>): DirectReply | null {
  const cursor = reply.cursor as Record<string, unknown> | undefined;
  if (reply.ok !== 1 || !cursor || !Array.isArray(cursor.firstBatch)) return null;
  const object = commandBody(reply, false);
  if (!object) return null;
  return { object, header: serialize({ ...reply, cursor: { ...cursor, firstBatch: [] } }) };
}

/**
 * A connection's 'data' listener: cuts the bytes into wire messages (each starts with its length as
 * an int32) and hands each to `onMessage` as it completes; a length out of bounds goes to
 * `onBadLength` instead, and nothing after it is read.
 */
function messageFramer(onMessage: (msg: Buffer) => void, onBadLength: (len: number) => void): (data: Buffer) => void {
  let chunks: Buffer[] = [];
  let buffered = 0;
  return (data) => {
    chunks.push(data);
    buffered += data.length;
    while (buffered >= 4) {
      let head = chunks[0];
      if (head.length < 4) {
        head = Buffer.concat(chunks);
        chunks = [head];
      }
      const len = head.readInt32LE(0);
      if (len < 16 || len > MAX_MESSAGE) {
        onBadLength(len);
        return;
      }
      if (buffered < len) break;
      if (head.length < len) {
        head = Buffer.concat(chunks);
        chunks = [head];
      }
      const msg = head.subarray(0, len);
      const rest = head.subarray(len);
      chunks[0] = rest;
      if (rest.length === 0) chunks.shift();
      buffered -= len;
      onMessage(msg);
    }
  };
}

export { ProtocolError };
