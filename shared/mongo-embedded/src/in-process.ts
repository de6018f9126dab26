/**
 * In-process connections to the embedded server (docs/adr/0048).
 *
 * In the one-process platform the mongodb driver and the embedded server share a process, yet every
 * command went through the kernel twice (a write and a read each way). The driver has no option to
 * be handed a stream, and calls `net.createConnection(options)` on the `net` module object for each
 * connection. So, and only when a server opts in (`inProcessClients`), this module wraps that one
 * function, once per process: a call whose options name the `path` of the Unix domain socket of an
 * embedded server of this process that opted in gets one end of an in-memory stream pair, the server
 * the other; every other call (other paths, hosts and ports, the string and port forms) goes to the
 * original untouched. The wrapper goes away when the last such server closes, unless something else
 * has wrapped the function since (it then stays, passing everything through).
 *
 * The URL is the socket's own (`mongodb://%2F…%2Fmongod.sock/`): without the wrapper, or from another
 * process (mongosh, Compass), the same URL reaches the same server over the real socket.
 */
import net from 'node:net';
import { Duplex } from 'node:stream';

type Acceptor = (serverEnd: net.Socket) => void;

/**
 * Where the server end of an in-process connection offers to run commands given as objects
 * (docs/adr/0052), and where the client end passes that on for the driver (driver-direct.ts). The
 * answer is the reply's BSON, null for a command sent with moreToCome, or undefined when the
 * connection is closed (the command then takes the wire).
 */
export const DIRECT_COMMANDS = Symbol.for('@helpdesk/mongo-embedded direct commands');
export type DirectCommands = (body: Record<string, unknown>, moreToCome: boolean) => Promise<Uint8Array | null | undefined>;

/** Socket path -> the server that accepts in-process connections for it. */
const endpoints = new Map<string, Acceptor>();
let original: typeof net.createConnection | null = null;
let wrapper: typeof net.createConnection | null = null;

/** Serves in-process connections to `socketPath` with `accept` until the returned function is called. */
export function serveInProcess(socketPath: string, accept: Acceptor): () => void {
  install();
  endpoints.set(socketPath, accept);
  return () => {
    if (endpoints.get(socketPath) === accept) endpoints.delete(socketPath);
    if (endpoints.size === 0) uninstall();
  };
}

/** Whether `net.createConnection` is currently wrapped by this module (tests). */
export function inProcessHookInstalled(): boolean {
  return wrapper !== null && net.createConnection === wrapper;
}

function install(): void {
  if (wrapper) return;
  const orig = net.createConnection;
  const wrapped = function createConnection(this: unknown, ...args: unknown[]) {
    const o = args[0];
    if (o !== null && typeof o === 'object' && typeof (o as net.IpcNetConnectOpts).path === 'string') {
      const accept = endpoints.get((o as net.IpcNetConnectOpts).path);
      if (accept) return connectInProcess(accept, typeof args[1] === 'function' ? (args[1] as () => void) : undefined);
    }
    return (orig as (...a: unknown[]) => net.Socket).apply(this, args);
  } as typeof net.createConnection;
  original = orig;
  wrapper = wrapped;
  net.createConnection = wrapped;
}

function uninstall(): void {
  if (!wrapper || !original) return;
  // Something wrapped it after us: unwrapping would remove theirs too. Ours passes everything through now.
  if (net.createConnection !== wrapper) return;
  net.createConnection = original;
  wrapper = null;
  original = null;
}

function connectInProcess(accept: Acceptor, onConnect?: () => void): net.Socket {
  const client = new InProcessSocket();
  const server = new InProcessSocket();
  client.peer = server;
  server.peer = client;
  const socket = client as unknown as net.Socket;
  if (onConnect) socket.once('connect', onConnect);
  accept(server as unknown as net.Socket);
  client[DIRECT_COMMANDS] = server[DIRECT_COMMANDS];
  // As a socket's, 'connect' comes after the caller has had the socket back (and its listeners on).
  process.nextTick(() => {
    if (client.destroyed) return;
    client.emit('connect');
    client.emit('ready');
  });
  return socket;
}

/**
 * One end of an in-memory connection, with what the driver and the server use of a net.Socket:
 * write/data/end/close/destroy, setTimeout with 'timeout' after that long idle, and no-op
 * setNoDelay/setKeepAlive/ref/unref. Bytes written arrive at the peer on the next tick, never inside
 * the writer's call (as from a socket), those written in one tick together; an end or a destroy
 * arrives after the bytes written before it. Nothing is lost or reordered, and, as the kernel buffers
 * of a socket pair, a reader that does not read lets the bytes pile up (here: in its readable buffer).
 * Chunks are handed over, not copied: a writer must not reuse a buffer once written. Neither end here
 * does (the driver writes a fresh `Buffer.concat` per command, the server a fresh reply per answer).
 */
class InProcessSocket extends Duplex {
  peer!: InProcessSocket;
  [DIRECT_COMMANDS]?: DirectCommands;
  readonly remoteAddress = undefined;
  readonly remotePort = undefined;
  readonly connecting = false;
  /** Chunks written by the peer, delivered on the next tick; null = the peer ended. */
  private inbox: (Buffer | null)[] = [];
  /** The end has been received: nothing more arrives. */
  private eof = false;
  private timeoutMs = 0;
  private timer: NodeJS.Timeout | null = null;

  constructor() {
    super({ allowHalfOpen: false });
  }

  override _read(): void {}

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.peer.receive(chunk);
    this.timer?.refresh();
    callback();
  }

  override _writev(chunks: { chunk: Buffer }[], callback: (error?: Error | null) => void): void {
    for (const c of chunks) this.peer.receive(c.chunk);
    this.timer?.refresh();
    callback();
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.peer.receive(null);
    callback();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.inbox = [];
    // The peer reads what was written before, then the end (a closed socket's FIN), then closes.
    this.peer.receive(null);
    callback(error);
  }

  private receive(chunk: Buffer | null): void {
    if (this.destroyed || this.eof) return;
    if (chunk === null) this.eof = true;
    if (this.inbox.push(chunk) === 1) process.nextTick(deliver, this);
  }

  /** Pushes what arrived since the last tick into the readable side. */
  flushInbox(): void {
    const chunks = this.inbox;
    this.inbox = [];
    if (this.destroyed) return;
    this.timer?.refresh();
    for (const c of chunks) {
      this.push(c);
      if (c === null) break;
    }
  }

  setTimeout(ms: number, callback?: () => void): this {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.timeoutMs = ms;
    if (callback) {
      if (ms === 0) this.off('timeout', callback);
      else this.once('timeout', callback);
    }
    if (ms > 0 && !this.destroyed) {
      // refresh() on every read and write restarts it: 'timeout' fires after `ms` without either.
      this.timer = setTimeout(() => {
        this.timer = null;
        if (!this.destroyed && this.timeoutMs === ms) this.emit('timeout');
      }, ms);
      this.timer.unref();
    }
    return this;
  }

  setNoDelay(): this {
    return this;
  }

  setKeepAlive(): this {
    return this;
  }

  ref(): this {
    return this;
  }

  unref(): this {
    return this;
  }
}

function deliver(s: InProcessSocket): void {
  s.flushInbox();
}
