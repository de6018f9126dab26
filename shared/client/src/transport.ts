import { isObject, retryAfterSeconds } from './errors';

/** fetch as the client calls it (globalThis.fetch by default; tests and browsers may pass their own). */
export type FetchLike = (input: Request) => Promise<Response>;

export interface RetryPolicy {
  /** Retries of a 429 answer (never of any other status). */
  retries: number;
  /** The longest wait honoured: a 429 asking for more is returned at once instead. */
  maxWaitMs: number;
}

/** When `Retry-After` and `error.retryAfter` are both absent. */
const DEFAULT_WAIT_MS = 1_000;

/**
 * Sends a request, and again after a 429 once `Retry-After` (seconds or an HTTP date; else the body's
 * `error.retryAfter`) has passed, at most `retries` times. Each attempt is a clone of the same
 * request, so its headers (the `Idempotency-Key` above all) and body are the same on every retry.
 */
export async function sendWithRetries(fetchImpl: FetchLike, request: Request, policy: RetryPolicy): Promise<Response> {
  for (let attempt = 0; ; attempt++) {
    const retryable = attempt < policy.retries;
    const res = await fetchImpl(retryable ? request.clone() : request);
    if (res.status !== 429 || !retryable) return res;
    const wait = await waitOf(res);
    if (wait > policy.maxWaitMs) return res;
    await res.body?.cancel();
    await sleep(wait, request.signal);
  }
}

async function waitOf(res: Response): Promise<number> {
  const header = retryAfterSeconds(res.headers.get('retry-after'));
  if (header !== undefined) return header * 1000;
  try {
    const body: unknown = await res.clone().json();
    if (isObject(body) && isObject(body.error) && typeof body.error.retryAfter === 'number') return body.error.retryAfter * 1000;
  } catch {
    // not JSON
  }
  return DEFAULT_WAIT_MS;
}

function sleep(ms: number, signal?: AbortSignal | null): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** A fresh idempotency key (a UUID where the platform has one: Node 20, browsers in secure contexts). */
export function newIdempotencyKey(): string {
  const c = (globalThis as { crypto?: { randomUUID?: () => string } }).crypto;
  if (c?.randomUUID) return c.randomUUID();
  return `idk_${Date.now().toString(36)}${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`;
}

/** The value of a header in a plain record, whatever the case of its name. */
export function headerOf(headers: Record<string, unknown> | undefined, name: string): string | undefined {
  if (!headers) return undefined;
  const lower = name.toLowerCase();
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() === lower && v !== undefined && v !== null) return String(v);
  return undefined;
}

/** What the low-level `request` answers: never thrown, whatever the status. */
export interface RawResponse<T = any> {
  status: number;
  headers: Headers;
  /** The parsed JSON body; the text when it is not JSON; undefined when empty. */
  body: T;
  text: string;
}

export type QueryValue = string | number | boolean | null | undefined | readonly (string | number | boolean)[];

export interface RawRequestOptions {
  /** Query parameters; arrays repeat the name (`expand[]=a&expand[]=b`); null/undefined are left out. */
  query?: Record<string, QueryValue>;
  /** Sent as JSON (`content-type: application/json` unless `headers` set one). */
  body?: unknown;
  /** Sent as is (for invalid JSON tests); wins over `body`. */
  rawBody?: string;
  headers?: Record<string, string>;
  /** The API key: undefined = the client's; null = no `Authorization` header. An `authorization` in `headers` wins. */
  key?: string | null;
  /** Sets `Idempotency-Key` (reused as is on every retry). */
  idempotencyKey?: string;
  /** 429 retries of this request (default 0: the low-level call reports what the API answered). */
  retries?: number;
  signal?: AbortSignal;
}

/** Builds the request of a low-level call: `baseUrl + path`, query, key, JSON or raw body. */
export function buildRawRequest(baseUrl: string, defaultKey: string | null, method: string, path: string, opts: RawRequestOptions): Request {
  const url = new URL(baseUrl + path);
  for (const [k, v] of Object.entries(opts.query ?? {})) {
    if (v === undefined || v === null) continue;
    for (const item of Array.isArray(v) ? v : [v]) url.searchParams.append(k, String(item));
  }
  const headers: Record<string, string> = { ...opts.headers };
  const key = opts.key === undefined ? defaultKey : opts.key;
  if (key !== null && headerOf(headers, 'authorization') === undefined) headers.authorization = `Bearer ${key}`;
  if (opts.idempotencyKey !== undefined && headerOf(headers, 'idempotency-key') === undefined) headers['idempotency-key'] = opts.idempotencyKey;
  let body: string | undefined;
  if (opts.rawBody !== undefined) body = opts.rawBody;
  else if (opts.body !== undefined) body = JSON.stringify(opts.body);
  if (body !== undefined && headerOf(headers, 'content-type') === undefined) headers['content-type'] = 'application/json';
  return new Request(url, { method, headers, body, signal: opts.signal });
}

/** Reads an answer whole: status, headers, the parsed body (or its text) and the text. */
export async function readRaw<T = any>(res: Response): Promise<RawResponse<T>> {
  const text = await res.text();
  let body: unknown = text === '' ? undefined : text;
  if (text !== '') {
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON: callers look at `text`
    }
  }
  return { status: res.status, headers: res.headers, body: body as T, text };
}
