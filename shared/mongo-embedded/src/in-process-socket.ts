/**
 * The one stand-in for a net.Socket inside a process: the embedded server's in-process connections
 * (in-process.ts, docs/adr/0048) carry wire bytes between two of them, and kit's in-process hops
 * (shared/kit/src/in-process.ts, docs/adr/0046) hang a request and its response on one with no peer.
 * It imports nothing but node's stream module, so kit reaches it by its path without loading the
 * embedded server.
 */
import { Duplex } from 'node:stream';

export interface InProcessSocketOptions {
  /** What the socket says of its ends; undefined, as a Unix domain socket's, when absent. */
  remoteAddress?: string;
  remoteFamily?: string;
  remotePort?: number;
  localAddress?: string;
  /**
   * Told, inside `destroy()`, that the socket is being destroyed. With it, an error given to
   * `destroy(err)` goes here and is not emitted as 'error' (the socket then just closes): the
   * owner, not the socket's listeners, reports it.
   */
  onDestroy?: (error: Error | null) => void;
}

/**
 * One end of an in-memory connection, with what the mongodb driver, the embedded server and Node's
 * http messages use of a net.Socket: write/data/end/close/destroy, cork/uncork, setTimeout with
 * 'timeout' after that long idle, and no-op setNoDelay/setKeepAlive/ref/unref. Bytes written arrive at
 * the peer on the next tick, never inside the writer's call (as from a socket), those written in one
 * tick together; an end or a destroy arrives after the bytes written before it. Nothing is lost or
 * reordered, and, as the kernel buffers of a socket pair, a reader that does not read lets the bytes
 * pile up (here: in its readable buffer). Chunks are handed over, not copied: a writer must not reuse
 * a buffer once written. Neither end of a pair does (the driver writes a fresh `Buffer.concat` per
 * command, the server a fresh reply per answer). Without a peer, what is written goes nowhere.
 */
export class InProcessSocket extends Duplex {
  peer: InProcessSocket | null = null;
  readonly remoteAddress: string | undefined;
  readonly remoteFamily: string | undefined;
  readonly remotePort: number | undefined;
  readonly localAddress: string | undefined;
  readonly connecting = false;
  /** Chunks written by the peer, delivered on the next tick; null = the peer ended. */
  private inbox: (Buffer | null)[] = [];
  /** The end has been received: nothing more arrives. */
  private eof = false;
  private timeoutMs = 0;
  private timer: NodeJS.Timeout | null = null;
  private readonly onDestroy: ((error: Error | null) => void) | undefined;

  constructor(options?: InProcessSocketOptions) {
    super({ allowHalfOpen: false });
    this.remoteAddress = options?.remoteAddress;
    this.remoteFamily = options?.remoteFamily;
    this.remotePort = options?.remotePort;
    this.localAddress = options?.localAddress;
    this.onDestroy = options?.onDestroy;
  }

  override _read(): void {}

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.peer?.receive(chunk);
    this.timer?.refresh();
    callback();
  }

  override _writev(chunks: { chunk: Buffer }[], callback: (error?: Error | null) => void): void {
    const peer = this.peer;
    if (peer) for (const c of chunks) peer.receive(c.chunk);
    this.timer?.refresh();
    callback();
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.peer?.receive(null);
    callback();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.inbox = [];
    // The peer reads what was written before, then the end (a closed socket's FIN), then closes.
    this.peer?.receive(null);
    if (this.onDestroy) {
      this.onDestroy(error);
      callback(null);
    } else {
      callback(error);
    }
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

/** Two connected ends: what one writes, the other reads. */
export function inProcessSocketPair(): [InProcessSocket, InProcessSocket] {
  const a = new InProcessSocket();
  const b = new InProcessSocket();
  a.peer = b;
  b.peer = a;
  return [a, b];
}

function deliver(s: InProcessSocket): void {
  s.flushInbox();
}
