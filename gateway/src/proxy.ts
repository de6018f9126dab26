import { Readable } from 'node:stream';
import { Pool, type Dispatcher } from 'undici';
import { INTERNAL_TOKEN_HEADER, REQUEST_ID_HEADER } from '@helpdesk/contracts';
import { describeError, withFailure } from './access-log';
import { ApiError, forwardedIdempotencyKey, IDEMPOTENCY_FINGERPRINT_HEADER, IDEMPOTENCY_KEY_HEADER, inProcessServices, upstreamUnavailable, type Logger } from '@helpdesk/kit';

/** One replica of a service: its origin and its two pools. */
interface Replica {
  /** The replica's origin: a service registered in this process under it is reached without a socket (docs/adr/0046). */
  origin: string;
  basePath: string;
  pool: Pool;
  /** Event streams (docs/adr/0021): one held connection each, no body timeout, apart from the request pool. */
  streams: Pool;
  /** Until then (ms since the epoch) the replica is passed over: its last connection was refused (docs/adr/0075). */
  restingUntil: number;
}

/**
 * A service: one base URL (a Kubernetes Service, compose's name), or its replicas' own base URLs,
 * taken in turn per request and per held stream (docs/adr/0075).
 */
interface Upstream {
  replicas: Replica[];
  /** The next replica's index. */
  next: number;
}

export interface ProxyRequest {
  service: string;
  method: string;
  /** Path and query string below `/api/v1`. */
  pathAndQuery: string;
  body: Buffer | null;
  contentType: string | undefined;
  token: string;
  requestId: string;
  /** The request's Idempotency-Key (scoped) and fingerprint: the service records its write with them (docs/adr/0062). */
  idempotency?: { key: string; fingerprint: string } | null;
  /** The answer's headers, then its body, each within this; default 30 s (the gateway's own calls: kit's 5 s). */
  timeoutMs?: number;
}

export interface ProxyAnswer {
  status: number;
  contentType: string | null;
  location: string | null;
  body: Buffer;
}

/** An open upstream answer whose body is read as it comes (a `text/event-stream`). */
export interface StreamAnswer {
  status: number;
  contentType: string | null;
  /** A download's own headers (`content-disposition`, `x-export-*`, docs/adr/0036). */
  headers: Record<string, string>;
  body: Readable;
}

/** The headers of a streamed answer the client gets besides its content type. */
const STREAM_HEADERS = /^(content-disposition|x-export-[a-z-]+)$/;

/**
 * An event stream's slow-client bound (docs/adr/0021): the notifications service's default
 * (STREAM_MAX_BUFFERED_BYTES), applied by the gateway to streams it reads in process (docs/adr/0073).
 */
export const STREAM_MAX_BUFFERED_BYTES = 1024 * 1024;

/** How soon a client may retry a route whose service is unavailable. */
const UNAVAILABLE_RETRY_AFTER_S = 5;

/**
 * The route's service has no URL or did not answer (connection refused, unknown host, no answer in
 * time): 503 for its routes only, counted per service. The message names the service, never where
 * it lives.
 */
const unavailable = (service: string, what: string, err?: unknown) => {
  upstreamUnavailable.inc({ service });
  const refusal = new ApiError('service_unavailable', `The ${service} service is temporarily unavailable; retry later.`, undefined, {
    headers: { 'Retry-After': String(UNAVAILABLE_RETRY_AFTER_S) },
  });
  // The access line's cause (gateway/src/access-log.ts): which service, what failed.
  return withFailure(refusal, { upstream: service, what, ...(err === undefined ? {} : { error: describeError(err) }) });
};

/**
 * A service as the gateway's `/readyz` reports it: `ready` (its own `/readyz` answered 200 in time),
 * `unreachable` (no answer in time, or an answer other than ready), `not_configured` (no URL).
 */
export type UpstreamState = 'ready' | 'unreachable' | 'not_configured';
/** A service's `/readyz` must answer within this (the gateway's own probe has a few seconds). */
const PROBE_TIMEOUT_MS = 1_000;
/** A probe's answer is reused this long: a storm of `/readyz` requests sends each service one probe. */
const PROBE_TTL_MS = 1_500;

interface Probe {
  state: UpstreamState;
  at: number;
  /** The probe under way, shared by every request that needs it (one at a time per service). */
  pending: Promise<UpstreamState> | null;
}

/** `promise`, or `fallback` once `ms` have passed without it. */
function within<T>(promise: Promise<T>, ms: number, fallback: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(fallback), ms);
    timer.unref();
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/**
 * One request through the pool, its answer gathered as it arrives (docs/adr/0045): what
 * `pool.request` answers (status, the content type and location when sent once, the body's bytes)
 * without a body stream, a parse of every header and an ArrayBuffer copy per request. A failure
 * after the headers is flagged `afterHeaders` (the answer was cut short).
 */
function collect(pool: Pick<Dispatcher, 'dispatch'>, opts: Dispatcher.DispatchOptions): Promise<ProxyAnswer> {
  return new Promise((resolve, reject) => {
    let status = 0;
    let contentType: string | null | undefined;
    let location: string | null | undefined;
    let started = false;
    const chunks: Buffer[] = [];
    // A header sent twice is not one string: answered as absent, as pool.request's parsed headers were.
    const once = (seen: string | null | undefined, value: Buffer) => (seen === undefined ? value.toString('latin1') : null);
    pool.dispatch(opts, {
      onConnect() {},
      onHeaders(statusCode: number, raw: Buffer[]) {
        started = true;
        status = statusCode;
        for (let i = 0; i < raw.length; i += 2) {
          const name = raw[i];
          if (name.length === 12 && name.toString('latin1').toLowerCase() === 'content-type') contentType = once(contentType, raw[i + 1]);
          else if (name.length === 8 && name.toString('latin1').toLowerCase() === 'location') location = once(location, raw[i + 1]);
        }
        return true;
      },
      onData(chunk: Buffer) {
        chunks.push(chunk);
        return true;
      },
      onComplete() {
        resolve({ status, contentType: contentType ?? null, location: location ?? null, body: chunks.length === 1 ? chunks[0] : Buffer.concat(chunks) });
      },
      onError(err: Error) {
        if (started) Object.assign(err, { afterHeaders: true });
        reject(err);
      },
    } as Dispatcher.DispatchHandler);
  });
}

/**
 * The body of an event stream answered by a service in this process (docs/adr/0073): what the
 * service writes is pushed as it comes; destroying it (the client left, its key was revoked, the
 * pipe failed) closes the service's side as a closed connection would.
 */
class InProcessStreamBody extends Readable {
  abortExchange: ((err?: Error) => void) | null = null;

  override _read(): void {}

  override _destroy(err: Error | null, callback: (err?: Error | null) => void): void {
    const abort = this.abortExchange;
    this.abortExchange = null;
    abort?.();
    callback(err);
  }
}

/** A streamed answer's content type and passed headers, from undici's raw headers. */
function streamHeadersOf(raw: Buffer[]): { contentType: string | null; headers: Record<string, string> } {
  let contentType: string | null = null;
  const headers: Record<string, string> = {};
  const seen = new Set<string>();
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i].toString('latin1').toLowerCase();
    const value = raw[i + 1].toString('latin1');
    // A header sent twice is not one string: left out, as the HTTP path's parsed headers leave it.
    if (seen.has(name)) {
      if (name === 'content-type') contentType = null;
      delete headers[name];
      continue;
    }
    seen.add(name);
    if (name === 'content-type') contentType = value;
    else if (STREAM_HEADERS.test(name)) headers[name] = value;
  }
  return { contentType, headers };
}

/**
 * A streamed answer from a service in this process (the one-process platform; docs/adr/0073): the
 * same request handed to its listener as kit's in-process hops hand one (docs/adr/0046), its body
 * pushed into a readable as the service writes it. Over HTTP a client that stops reading fills the
 * connection until the service sees its own backlog pass its bound and drops it; here the service
 * never sees a backlog (nothing waits between the two), so the same bound is applied where the
 * backlog is: a body holding more than `maxBufferedBytes` unread is destroyed, which drops the
 * client and closes the service's side.
 */
function openInProcessStream(local: Pick<Dispatcher, 'dispatch'>, opts: Dispatcher.DispatchOptions, signal: AbortSignal, maxBufferedBytes: number): Promise<StreamAnswer> {
  return new Promise((resolve, reject) => {
    const body = new InProcessStreamBody();
    let answered = false;
    const onAbort = () => body.destroy();
    signal.addEventListener('abort', onAbort, { once: true });
    local.dispatch(opts, {
      onConnect(abort: (err?: Error) => void) {
        body.abortExchange = abort;
        if (signal.aborted) abort();
      },
      onHeaders(statusCode: number, raw: Buffer[]) {
        answered = true;
        signal.removeEventListener('abort', onAbort);
        resolve({ status: statusCode, ...streamHeadersOf(raw), body });
        return true;
      },
      onData(chunk: Buffer) {
        if (!body.push(chunk) && body.readableLength > maxBufferedBytes) body.destroy();
        return true;
      },
      onComplete() {
        body.abortExchange = null;
        body.push(null);
      },
      onError(err: Error) {
        body.abortExchange = null;
        signal.removeEventListener('abort', onAbort);
        if (answered) body.destroy(err);
        else reject(err);
      },
    } as Dispatcher.DispatchHandler);
  });
}

/** The request pool's timeouts; an in-process answer keeps the same ones. */
const HEADERS_TIMEOUT_MS = 30_000;
const BODY_TIMEOUT_MS = 30_000;

/** A replica that refused a connection is tried last for this long, then in its turn again (docs/adr/0075). */
export const REPLICA_RESTING_MS = 1_000;
/**
 * Failures before any connection carried the request (refused, no such host, no connection in
 * time): the service never saw it, so another replica may take it, a write included.
 */
const NOT_CONNECTED: ReadonlySet<string> = new Set(['ECONNREFUSED', 'UND_ERR_CONNECT_TIMEOUT', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);
const notConnected = (err: unknown) => NOT_CONNECTED.has((err as { code?: unknown } | null)?.code as string);

/** A service's base URLs as given: one, or its replicas'. */
export type ServiceTargets = string | readonly string[];

/**
 * One keep-alive connection pool per service, or per replica of a service given several base URLs
 * (docs/adr/0075): requests and held streams take the replicas in turn, and one whose connection is
 * refused (stopped, restarting) hands the request to the next and is tried last for a second. The
 * client's `Authorization` is never forwarded. A service living in this process (the one-process
 * platform) is dispatched to without a socket, through the same handler (docs/adr/0046); so is a
 * streamed answer (docs/adr/0073).
 */
export class Upstreams {
  private readonly pools = new Map<string, Upstream>();
  private readonly probes = new Map<string, Probe>();
  private readonly debug: boolean;

  /** In-process event streams: a client with more than this unread is dropped (the service's own bound over HTTP). */
  private readonly streamMaxBufferedBytes: number;

  constructor(services: Record<string, ServiceTargets>, private readonly logger: Logger, opts: { streamMaxBufferedBytes?: number } = {}) {
    this.streamMaxBufferedBytes = opts.streamMaxBufferedBytes ?? STREAM_MAX_BUFFERED_BYTES;
    for (const [name, targets] of Object.entries(services)) {
      const urls = typeof targets === 'string' ? [targets] : [...new Set(targets)];
      if (urls.length === 0) continue;
      const replicas = urls.map((url): Replica => {
        const u = new URL(url);
        return {
          origin: u.origin,
          basePath: u.pathname.replace(/\/+$/, ''),
          pool: new Pool(u.origin, { connections: 128, keepAliveTimeout: 30_000, headersTimeout: HEADERS_TIMEOUT_MS, bodyTimeout: BODY_TIMEOUT_MS }),
          streams: new Pool(u.origin, { connections: null, keepAliveTimeout: 30_000, headersTimeout: 30_000, bodyTimeout: 0 }),
          restingUntil: 0,
        };
      });
      this.pools.set(name, { replicas, next: 0 });
    }
    this.debug = logger.isLevelEnabled('debug');
  }

  /**
   * `send` on the service's next replica in turn; on a failure before any connection carried the
   * request, on the next one, each at most once (resting replicas last). One replica: just it.
   */
  private async onReplica<T>(upstream: Upstream, send: (replica: Replica) => Promise<T>): Promise<T> {
    const { replicas } = upstream;
    if (replicas.length === 1) return send(replicas[0]);
    const first = upstream.next;
    upstream.next = (first + 1) % replicas.length;
    const now = Date.now();
    const order: Replica[] = [];
    const resting: Replica[] = [];
    for (let i = 0; i < replicas.length; i++) {
      const replica = replicas[(first + i) % replicas.length];
      (replica.restingUntil > now ? resting : order).push(replica);
    }
    order.push(...resting);
    for (let i = 0; ; i++) {
      try {
        const answer = await send(order[i]);
        order[i].restingUntil = 0;
        return answer;
      } catch (err) {
        if (!notConnected(err)) throw err;
        order[i].restingUntil = Date.now() + REPLICA_RESTING_MS;
        if (i === order.length - 1) throw err;
      }
    }
  }

  async forward(r: ProxyRequest): Promise<ProxyAnswer> {
    const upstream = this.pools.get(r.service);
    if (!upstream) throw unavailable(r.service, 'no URL configured');
    const headers: Record<string, string> = { [INTERNAL_TOKEN_HEADER]: r.token, [REQUEST_ID_HEADER]: r.requestId };
    if (r.body && r.contentType) headers['content-type'] = r.contentType;
    if (r.idempotency) {
      headers[IDEMPOTENCY_KEY_HEADER] = forwardedIdempotencyKey(r.idempotency.key);
      headers[IDEMPOTENCY_FINGERPRINT_HEADER] = r.idempotency.fingerprint;
    }
    const timeout = r.timeoutMs ?? HEADERS_TIMEOUT_MS;
    try {
      return await this.onReplica(upstream, (replica) => {
        const local = inProcessServices.get(replica.origin) as Pick<Dispatcher, 'dispatch'> | undefined;
        return collect(local ?? replica.pool, {
          method: r.method as 'GET',
          path: replica.basePath + r.pathAndQuery,
          headers,
          body: r.body,
          headersTimeout: timeout,
          bodyTimeout: r.timeoutMs ?? BODY_TIMEOUT_MS,
        });
      });
    } catch (err) {
      const what = (err as { afterHeaders?: boolean }).afterHeaders ? 'response interrupted' : 'unreachable';
      if (this.debug) this.logger.debug({ err, requestId: r.requestId, service: r.service }, `service ${what}`);
      throw unavailable(r.service, what, err);
    }
  }

  /**
   * Opens a streaming answer (a GET event stream, or a POST download such as an export: `method`,
   * `body`); `signal` aborts it (the client went away, or its key was revoked).
   */
  async openStream(
    r: Omit<ProxyRequest, 'body' | 'contentType' | 'method'> & { lastEventId?: string } & Partial<Pick<ProxyRequest, 'method' | 'body' | 'contentType'>>,
    signal: AbortSignal,
  ): Promise<StreamAnswer> {
    const upstream = this.pools.get(r.service);
    if (!upstream) throw unavailable(r.service, 'no URL configured');
    const headers: Record<string, string> = { [INTERNAL_TOKEN_HEADER]: r.token, [REQUEST_ID_HEADER]: r.requestId, accept: 'text/event-stream' };
    // EventSource's reconnection header: the replay point.
    if (r.lastEventId) headers['last-event-id'] = r.lastEventId;
    if (r.body && r.contentType) headers['content-type'] = r.contentType;
    try {
      return await this.onReplica(upstream, async (replica): Promise<StreamAnswer> => {
        const local = inProcessServices.get(replica.origin) as Pick<Dispatcher, 'dispatch'> | undefined;
        if (local) {
          const opts = { method: (r.method ?? 'GET') as 'GET', path: replica.basePath + r.pathAndQuery, headers, body: r.body ?? null, headersTimeout: 30_000, bodyTimeout: 0 };
          return openInProcessStream(local, opts, signal, this.streamMaxBufferedBytes);
        }
        const answer = await replica.streams.request({ method: (r.method ?? 'GET') as 'GET', path: replica.basePath + r.pathAndQuery, headers, body: r.body ?? null, signal });
        const ct = answer.headers['content-type'];
        const passed = Object.fromEntries(Object.entries(answer.headers).filter(([k, v]) => STREAM_HEADERS.test(k) && typeof v === 'string')) as Record<string, string>;
        return { status: answer.statusCode, contentType: typeof ct === 'string' ? ct : null, headers: passed, body: answer.body };
      });
    } catch (err) {
      if (this.debug) this.logger.debug({ err, requestId: r.requestId, service: r.service }, 'service unreachable');
      throw unavailable(r.service, 'unreachable', err);
    }
  }

  /**
   * Each service's state, `services` (those the gateway routes to) and every configured one: `ready`
   * when its own `/readyz` answers 200 within a second, `unreachable` when it does not (no answer,
   * or not ready), `not_configured` without a URL. Answers are reused for 1.5 s.
   */
  async states(services: readonly string[]): Promise<Record<string, UpstreamState>> {
    const names = [...new Set([...services, ...this.pools.keys()])].sort();
    const states = await Promise.all(names.map((name) => this.state(name)));
    return Object.fromEntries(names.map((name, i) => [name, states[i]]));
  }

  private state(service: string): Promise<UpstreamState> {
    const upstream = this.pools.get(service);
    if (!upstream) return Promise.resolve('not_configured');
    let probe = this.probes.get(service);
    if (!probe) this.probes.set(service, (probe = { state: 'unreachable', at: 0, pending: null }));
    if (Date.now() - probe.at < PROBE_TTL_MS) return Promise.resolve(probe.state);
    const p = probe;
    const pending = (p.pending ??= this.probe(upstream).then((state) => {
      Object.assign(p, { state, at: Date.now(), pending: null });
      return state;
    }));
    return within(pending, PROBE_TIMEOUT_MS, 'unreachable');
  }

  /** Ready when one of its replicas is (a Service routes to its ready endpoints). */
  private async probe(upstream: Upstream): Promise<UpstreamState> {
    const states = await Promise.all(upstream.replicas.map((replica) => this.probeReplica(replica)));
    return states.includes('ready') ? 'ready' : 'unreachable';
  }

  private async probeReplica(replica: Replica): Promise<UpstreamState> {
    try {
      const local = inProcessServices.get(replica.origin) as Pick<Dispatcher, 'dispatch'> | undefined;
      const answer = await collect(local ?? replica.pool, {
        method: 'GET',
        path: `${replica.basePath}/readyz`,
        headers: {},
        body: null,
        headersTimeout: PROBE_TIMEOUT_MS,
        bodyTimeout: PROBE_TIMEOUT_MS,
      });
      return answer.status === 200 ? 'ready' : 'unreachable';
    } catch {
      return 'unreachable';
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.pools.values()].flatMap((u) => u.replicas.flatMap((r) => [r.pool.close().catch(() => {}), r.streams.destroy().catch(() => {})])));
  }
}
