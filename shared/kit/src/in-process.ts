import { IncomingMessage, ServerResponse, STATUS_CODES } from 'node:http';
import { InProcessSocket } from '@helpdesk/mongo-embedded/src/in-process-socket';
import { context, createContextKey, SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';

/**
 * In-process hops (docs/adr/0046). When a service runs in the same process as its caller (the
 * one-process platform), the gateway's proxy and kit's internal clients hand a request straight to
 * the service's request listener (its express app) instead of writing it to a loopback socket:
 * no HTTP serialisation, socket writes or parsing on either side. Everything else is the same
 * request: a real `IncomingMessage` with the headers the HTTP client would have sent (host,
 * content-length), a real `ServerResponse` whose status line and headers are the ones Node would
 * have put on the wire (read from its serialised header, so repeated headers stay repeated), the
 * body's bytes as written, the service's middleware, limits and errors. A service that destroys its
 * socket or response cuts the answer short as a closed connection would; a caller's timeout or
 * abort closes the request on the service's side as a closed connection would.
 *
 * The caller sees the exchange through undici's dispatch-handler contract (`onConnect`,
 * `onHeaders`, `onData`, `onComplete`, `onError`), so one code path reads an answer from a socket
 * or from here. The gateway's streaming answers (event streams, export downloads) are taken in
 * process too (docs/adr/0073): the gateway then bounds an unread body itself, as notifications
 * bounds a slow client's backlog over HTTP.
 *
 * A service is taken in process only when it registered itself (`startService` with
 * `inProcess: true`, which the one-process platform sets); separate processes never share the
 * registry, so production's hops stay HTTP.
 */

export type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

/** undici's (legacy) dispatch handler, the part an in-process exchange calls. */
export interface DispatchHandlerLike {
  onConnect?(abort: (err?: Error) => void, context?: unknown): void;
  onHeaders?(statusCode: number, rawHeaders: Buffer[], resume: () => void, statusText: string): boolean;
  onData?(chunk: Buffer): boolean;
  onComplete?(trailers: Buffer[] | null): void;
  onError?(err: Error): void;
}

export interface InProcessDispatchOptions {
  method: string;
  /** Path and query, as on the request line. */
  path: string;
  headers?: Record<string, string | string[] | undefined> | null;
  body?: Buffer | string | null;
  /** Until the status and headers (undici's `headersTimeout`); 0 or absent = none. */
  headersTimeout?: number | null;
  /** Between two pieces of the body (undici's `bodyTimeout`); 0 or absent = none. */
  bodyTimeout?: number | null;
  /** The whole exchange (as fetch's `AbortSignal.timeout`); 0 or absent = none. */
  timeout?: number | null;
}

const errorWithCode = (message: string, code: string) => Object.assign(new Error(message), { code });

/** Methods that always carry a length, 0 when empty (undici's `expectsPayload`). */
const EXPECTS_PAYLOAD = new Set(['PUT', 'POST', 'PATCH', 'QUERY', 'PROPFIND', 'PROPPATCH']);

/** What the stand-in socket of a request handed over in process says of its ends: a loopback client. */
const LOOPBACK = { remoteAddress: '127.0.0.1', remoteFamily: 'IPv4', remotePort: 0, localAddress: '127.0.0.1' } as const;

const EXCHANGE = Symbol('in-process exchange');
type InProcessResponse = ServerResponse & { [EXCHANGE]: Exchange; _header: string | null; _headerSent: boolean; _send: typeof send };

/**
 * Replaces OutgoingMessage's `_send` (an own property: express swaps the response's prototype for
 * its own): what Node would write to the socket goes to the caller instead. The status line and
 * headers are read from the header Node serialised, the first time anything is sent.
 */
function send(this: InProcessResponse, data: string | Uint8Array, encoding?: BufferEncoding | null, callback?: () => void): boolean {
  const x = this[EXCHANGE];
  if (!this._headerSent) {
    this._headerSent = true;
    x.headers(this);
  }
  if (data.length > 0) {
    const chunk = typeof data === 'string' ? Buffer.from(data, encoding ?? 'utf8') : Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    x.data(chunk);
  }
  if (typeof callback === 'function') process.nextTick(callback);
  return true;
}

/** The status line and header lines Node serialised (`Name: value\r\n` each), as undici's raw headers. */
function rawHeadersOf(header: string): Buffer[] {
  const bytes = Buffer.from(header, 'latin1');
  const raw: Buffer[] = [];
  let i = header.indexOf('\r\n') + 2;
  const last = header.length - 2; // the blank line
  while (i < last) {
    const end = header.indexOf('\r\n', i);
    const colon = header.indexOf(':', i);
    let value = colon + 1;
    while (header.charCodeAt(value) === 32) value++;
    raw.push(bytes.subarray(i, colon), bytes.subarray(value, end));
    i = end + 2;
  }
  return raw;
}

const tracer = trace.getTracer('@helpdesk/kit/in-process');
/** Where express's instrumentation leaves the matched route for the server span (@opentelemetry/core's RPC metadata). */
const RPC_METADATA_KEY = createContextKey('OpenTelemetry SDK Context Key RPC_METADATA');

/** One request handed to a service in process. */
class Exchange {
  state: 'open' | 'headers' | 'done' = 'open';
  deadline = 0;
  end = 0;
  private span: Span | null = null;
  private rpc: { type: string; span: Span; route?: string } | null = null;
  /** Only a place to hang the socket API a request and its response touch; nothing is written to it. */
  readonly socket = new InProcessSocket({ ...LOOPBACK, onDestroy: (err) => this.closed(err ?? undefined) });
  res!: InProcessResponse;

  constructor(
    private readonly service: InProcessService,
    private readonly opts: InProcessDispatchOptions,
    private readonly handler: DispatchHandlerLike,
  ) {
    const now = Date.now();
    if (opts.headersTimeout) this.deadline = now + opts.headersTimeout;
    if (opts.timeout) this.end = now + opts.timeout;
  }

  start(listener: RequestListener): void {
    const { opts } = this;
    const method = opts.method.toUpperCase();
    const req = new IncomingMessage(this.socket as never);
    req.method = method;
    req.url = opts.path;
    req.httpVersionMajor = 1;
    req.httpVersionMinor = 1;
    req.httpVersion = '1.1';
    const body = opts.body == null ? null : typeof opts.body === 'string' ? Buffer.from(opts.body) : opts.body;
    // The headers an HTTP client sends: host first, the caller's, then the body's length.
    const headers: Record<string, string> = { host: this.service.host };
    const raw: string[] = ['host', this.service.host];
    if (opts.headers) {
      for (const name of Object.keys(opts.headers)) {
        const value = opts.headers[name];
        if (value === undefined) continue;
        const key = name.toLowerCase();
        const joined = Array.isArray(value) ? value.join(', ') : value;
        headers[key] = headers[key] === undefined ? joined : `${headers[key]}, ${joined}`;
        raw.push(name, joined);
      }
    }
    const length = body ? body.length : EXPECTS_PAYLOAD.has(method) ? 0 : null;
    if (length !== null) {
      headers['content-length'] = String(length);
      raw.push('content-length', String(length));
    }
    req.headers = headers;
    req.rawHeaders = raw;
    req.complete = true;
    if (body && body.length > 0) req.push(body);
    req.push(null);

    const res = new ServerResponse(req) as InProcessResponse;
    // Node frames a body without a length in chunks on a socket; here the pieces are passed as they are.
    res.useChunkedEncodingByDefault = false;
    res[EXCHANGE] = this;
    res._send = send;
    res.assignSocket(this.socket as never);
    res.once('finish', () => this.finish());
    this.res = res;

    this.handler.onConnect?.((err) => this.abort(err ?? errorWithCode('Request aborted', 'UND_ERR_ABORTED')));
    if (this.state === 'done') return;

    // Tracing: the service's server span, a child of the caller's active span (as the HTTP hop's
    // propagated context made it), with the route express's instrumentation finds.
    const parent = context.active();
    const span = tracer.startSpan(method, { kind: SpanKind.SERVER }, parent);
    try {
      if (span.isRecording()) {
        this.span = span;
        const path = opts.path.split('?')[0];
        span.setAttributes({ 'http.request.method': method, 'url.path': path, 'url.scheme': 'http', 'network.transport': 'inproc', 'server.address': this.service.host });
        this.rpc = { type: 'http', span };
        context.with(trace.setSpan(parent, span).setValue(RPC_METADATA_KEY, this.rpc), () => listener(req, res));
      } else {
        listener(req, res);
      }
    } catch (err) {
      // A listener that throws (express never does: it answers 500): the connection would be lost.
      this.socket.destroy(err as Error);
    }
  }

  headers(res: InProcessResponse): void {
    if (this.state !== 'open') return;
    this.state = 'headers';
    this.deadline = this.opts.bodyTimeout ? Date.now() + this.opts.bodyTimeout : 0;
    const status = res.statusCode;
    this.handler.onHeaders?.(status, rawHeadersOf(res._header ?? ''), () => {}, res.statusMessage || STATUS_CODES[status] || '');
  }

  data(chunk: Buffer): void {
    if (this.state !== 'headers') return;
    if (this.opts.bodyTimeout) this.deadline = Date.now() + this.opts.bodyTimeout;
    this.handler.onData?.(chunk);
  }

  private finish(): void {
    if (this.state === 'done') return;
    if (this.state === 'open') this.headers(this.res);
    this.state = 'done';
    this.endSpan(this.res.statusCode);
    this.service.settled(this);
    this.handler.onComplete?.(null);
    // What Node's server does once a response is finished: the response closes.
    process.nextTick(() => this.res.emit('close'));
  }

  /** The connection went away (the service destroyed it, or the caller aborted). */
  closed(err?: Error): void {
    if (this.state === 'done') return;
    this.state = 'done';
    this.endSpan(0, err);
    this.service.settled(this);
    this.handler.onError?.(err ?? errorWithCode('other side closed', 'UND_ERR_SOCKET'));
  }

  /** The caller gives up (a timeout, an abort): the service sees its connection close. */
  abort(err: Error): void {
    if (this.state === 'done') return;
    // The service's request is aborted as a closed connection aborts it; the caller hears `err`.
    this.closed(err);
    this.socket.destroy();
    this.res?.req?.destroy();
  }

  private endSpan(status: number, err?: Error): void {
    const span = this.span;
    if (!span) return;
    this.span = null;
    const route = this.rpc?.route;
    if (route) {
      span.setAttribute('http.route', route);
      span.updateName(`${this.opts.method.toUpperCase()} ${route}`);
    }
    if (status) span.setAttribute('http.response.status_code', status);
    if (err || status >= 500) span.setStatus({ code: SpanStatusCode.ERROR, message: err?.message });
    span.end();
  }
}

/** The timeouts of open exchanges, checked four times a second (undici's own timers are as coarse). */
const open = new Set<Exchange>();
let sweeper: NodeJS.Timeout | null = null;
function watch(x: Exchange): void {
  if (!x.deadline && !x.end) return;
  open.add(x);
  sweeper ??= setInterval(() => {
    const now = Date.now();
    for (const e of open) {
      if (e.state === 'done') open.delete(e);
      else if (e.end && now >= e.end) e.abort(errorWithCode('The operation was aborted due to timeout', 'ABORT_ERR'));
      else if (e.deadline && now >= e.deadline) {
        e.abort(e.state === 'open' ? errorWithCode('Headers Timeout Error', 'UND_ERR_HEADERS_TIMEOUT') : errorWithCode('Body Timeout Error', 'UND_ERR_BODY_TIMEOUT'));
      }
      if (e.state === 'done') open.delete(e);
    }
    if (open.size === 0) {
      clearInterval(sweeper!);
      sweeper = null;
    }
  }, 250);
  sweeper.unref();
}

/** A service's request listener, reachable in process at its URL's origin. */
export class InProcessService {
  /** `127.0.0.1:41234`: the `host` header its requests carry. */
  readonly host: string;
  private inflight = 0;
  private drained: (() => void) | null = null;

  constructor(
    readonly origin: string,
    private readonly listener: RequestListener,
    private readonly registry: InProcessServices,
  ) {
    this.host = new URL(origin).host;
  }

  /** undici's `Dispatcher.dispatch`: hands the request to the listener; the handler hears the answer. */
  dispatch(opts: InProcessDispatchOptions, handler: DispatchHandlerLike): boolean {
    const x = new Exchange(this, opts, handler);
    this.inflight++;
    watch(x);
    x.start(this.listener);
    return true;
  }

  settled(x: Exchange): void {
    // Not kept for the sweeper: a finished exchange is garbage at once (young, cheap to collect).
    open.delete(x);
    if (--this.inflight === 0 && this.drained) this.drained();
  }

  /**
   * Stops taking requests in process (callers go back to the URL, where the stopping server refuses
   * them) and waits for the ones under way, at most `graceMs`, as a server's close waits for its
   * connections.
   */
  async close(graceMs = 5_000): Promise<void> {
    this.registry.remove(this);
    if (this.inflight === 0) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, graceMs);
      timer.unref();
      this.drained = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}

/** The services of this process reachable without a socket, by their URL's origin. */
export class InProcessServices {
  private readonly byOrigin = new Map<string, InProcessService>();

  /** Registers `listener` as the answer for requests to `url`'s origin (replacing an earlier one). */
  register(url: string, listener: RequestListener): InProcessService {
    const origin = new URL(url).origin;
    const service = new InProcessService(origin, listener, this);
    this.byOrigin.set(origin, service);
    return service;
  }

  /** The service at `origin` (`http://host:port`, as `new URL(url).origin` spells it), if it lives in this process. */
  get(origin: string): InProcessService | undefined {
    return this.byOrigin.size === 0 ? undefined : this.byOrigin.get(origin);
  }

  remove(service: InProcessService): void {
    if (this.byOrigin.get(service.origin) === service) this.byOrigin.delete(service.origin);
  }
}

/** This process's registry (the one-process platform's services register here). */
export const inProcessServices = new InProcessServices();

/** An in-process answer read whole. */
export interface InProcessAnswer {
  status: number;
  rawHeaders: Buffer[];
  body: Buffer;
}

/** One exchange with an in-process service, its answer gathered; rejects as a failed HTTP call would. */
export function requestInProcess(service: InProcessService, opts: InProcessDispatchOptions): Promise<InProcessAnswer> {
  return new Promise((resolve, reject) => {
    let status = 0;
    let rawHeaders: Buffer[] = [];
    const chunks: Buffer[] = [];
    service.dispatch(opts, {
      onHeaders(statusCode, raw) {
        status = statusCode;
        rawHeaders = raw;
        return true;
      },
      onData(chunk) {
        chunks.push(chunk);
        return true;
      },
      onComplete() {
        resolve({ status, rawHeaders, body: chunks.length === 1 ? chunks[0] : Buffer.concat(chunks) });
      },
      onError: reject,
    });
  });
}
