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
import { inProcessSocketPair, type InProcessSocket } from './in-process-socket';

type Acceptor = (serverEnd: net.Socket) => void;

/**
 * Where the server end of an in-process connection offers to run commands given as objects
 * (docs/adr/0052), and where the client end passes that on for the driver (driver-direct.ts). The
 * answer is the reply's BSON, null for a command sent with moreToCome, or undefined when the
 * connection is closed (the command then takes the wire). With `asObject` (a `find` whose reply the
 * driver reads whole, with the default BSON options: docs/adr/0077) a successful reply comes back as
 * a `DirectReply` instead of its BSON.
 */
export const DIRECT_COMMANDS = Symbol.for('@helpdesk/mongo-embedded direct commands');
export type DirectCommands = (body: Record<string, unknown>, moreToCome: boolean, asObject?: boolean) => Promise<Uint8Array | DirectReply | null | undefined>;

/**
 * A reply handed over as an object (docs/adr/0077): `object` is exactly what the driver's BSON
 * round trip of the reply would give (direct-command.ts's copy, which shares nothing mutable with the
 * server's store), `header` the BSON of the reply without its cursor's documents (what the driver
 * reads of a reply before handing it on: ok, cluster and operation time, the cursor's id and ns).
 */
export interface DirectReply {
  readonly object: Record<string, unknown>;
  readonly header: Uint8Array;
}
/** An in-process connection's end, with the server's direct commands when it offers them. */
type DirectSocket = InProcessSocket & { [DIRECT_COMMANDS]?: DirectCommands };

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
  const [client, server] = inProcessSocketPair() as [DirectSocket, DirectSocket];
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
