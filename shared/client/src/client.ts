import createFetchClient, { type Client, type ClientPathsWithMethod, type FetchResponse, type MaybeOptionalInit, type MethodResponse } from 'openapi-fetch';
import { HelpdeskError } from './errors';
import type { paths } from './schema';
import { dataOf, hasNextPage, paginationOf, type DataOf, type ItemOf, type Page } from './shapes';
import {
  buildRawRequest,
  headerOf,
  newIdempotencyKey,
  readRaw,
  sendWithRetries,
  type FetchLike,
  type RawRequestOptions,
  type RawResponse,
  type RetryPolicy,
} from './transport';

export interface HelpdeskClientOptions {
  /** The API root, e.g. `http://127.0.0.1:8080/api/v1`. */
  baseUrl: string;
  /** `sk_…` or `pk_…`; null sends no `Authorization` header. */
  apiKey?: string | null;
  /** 429 retries of a typed call, honouring `Retry-After` (default 2). Other statuses are never retried. */
  maxRetries?: number;
  /** The longest `Retry-After` waited for (default 60 000 ms); a 429 asking for more is answered at once. */
  maxRetryWaitMs?: number;
  /**
   * Gives a typed `POST`/`PATCH` sent without a key its own `Idempotency-Key` (default true), so that a
   * retry is a replay, never a second write.
   */
  autoIdempotencyKey?: boolean;
  /** Headers sent with every call. */
  headers?: Record<string, string>;
  /** Another fetch (default: globalThis.fetch). */
  fetch?: FetchLike;
}

/** Options every typed call takes besides openapi-fetch's own (`params`, `body`, `headers`, `signal` …). */
export interface CallOptions {
  /** Sets `Idempotency-Key` (POST, PATCH); the same key is sent on every retry of the call. */
  idempotencyKey?: string;
  /** 429 retries of this call (default: the client's `maxRetries`). */
  retries?: number;
}

type Method = 'get' | 'post' | 'patch' | 'delete';
type Media = `${string}/${string}`;
type ApiClient = Client<paths, Media>;
/** Paths that have this method. */
export type PathsWith<M extends Method> = ClientPathsWithMethod<ApiClient, M>;

type RequiredKeysOf<T> = { [K in keyof T]-?: Pick<T, K> extends Required<Pick<T, K>> ? K : never }[keyof T];
type JsonBodyOf<Op> = Op extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;
/** openapi-fetch lets unknown body fields through (its options are inferred); this refuses them at the top level. */
type NoUnknownBodyFields<I, Op> = I extends { body: infer G }
  ? G extends object
    ? { body: G & { [K in Exclude<keyof G, keyof JsonBodyOf<Op>>]: never } }
    : unknown
  : unknown;
type InitArgs<I, Op> = RequiredKeysOf<I> extends never
  ? [init?: I & NoUnknownBodyFields<I, Op> & CallOptions]
  : [init: I & NoUnknownBodyFields<I, Op> & CallOptions];

/** openapi-fetch's answer type of one operation. */
type ResponseOf<Op, I> = Op extends Record<string | number, any> ? FetchResponse<Op, I, Media> : never;

/** A typed call: openapi-fetch's, plus `CallOptions` and a refusal of unknown body fields. */
export type TypedMethod<M extends Method> = <P extends PathsWith<M>, I extends MaybeOptionalInit<paths[P], M>>(
  url: P,
  ...init: InitArgs<I, paths[P][M]>
) => Promise<ResponseOf<paths[P][M], I>>;

/** The success body of `GET path`. */
export type GetBody<P extends PathsWith<'get'>> = MethodResponse<ApiClient, 'get', P>;
/** The list paths (`GET` answering an array), which `paginate` walks. */
export type ListPath = { [P in PathsWith<'get'>]: DataOf<GetBody<P>> extends readonly unknown[] ? P : never }[PathsWith<'get'>];

export interface HelpdeskClient {
  readonly baseUrl: string;
  readonly apiKey: string | null;
  /** Typed calls on the document's paths (`{teamId}` … in `params.path`). They answer `{data | error, response}`; `unwrap` them. */
  GET: TypedMethod<'get'>;
  POST: TypedMethod<'post'>;
  PATCH: TypedMethod<'patch'>;
  DELETE: TypedMethod<'delete'>;
  /**
   * Every item of a list, page after page (`page` = 1, 2, … with the given `pageSize`) until the list
   * says there is no more (`hasMore` false, else the last page). A refusal throws `HelpdeskError`.
   */
  paginate<P extends ListPath>(url: P, ...init: InitArgs<MaybeOptionalInit<paths[P], 'get'>, paths[P]['get']>): AsyncIterableIterator<ItemOf<GetBody<P>>>;
  /** The `data` of a typed call, whatever the shape (`await client.data(client.GET(…))`); throws `HelpdeskError` on a refusal. */
  data<D>(call: CallResult<D> | Promise<CallResult<D>>): Promise<DataOf<D>>;
  /** The items and pagination of a typed list call, wherever the pagination sits; throws `HelpdeskError` on a refusal. */
  page<D>(call: CallResult<D> | Promise<CallResult<D>>): Promise<Page<ItemOf<D>>>;
  /** Low-level: any method and concrete path (`/teams/…/tickets`); answers whatever came back, never throws on a status. */
  request<T = any>(method: string, path: string, opts?: RawRequestOptions): Promise<RawResponse<T>>;
  /** The same client with another key. */
  withKey(apiKey: string | null): HelpdeskClient;
  /** The openapi-fetch client underneath (for `use(middleware)`); its calls have no retries nor automatic keys. */
  readonly raw: ApiClient;
}

/** What a typed call answers (openapi-fetch's `{data | error, response}`). */
export interface CallResult<D> {
  data?: D;
  error?: unknown;
  response: Response;
}

/** The `data` of a typed call's answer, whatever the shape; throws `HelpdeskError` on a refusal. */
export function unwrap<D>(result: CallResult<D>): DataOf<D> {
  if (!result.response.ok || result.error !== undefined) throw HelpdeskError.from(result.response.status, result.response.headers, result.error);
  return dataOf(result.data as D);
}

/** The items and pagination of a typed list call's answer, wherever the pagination sits; throws `HelpdeskError` on a refusal. */
export function unwrapPage<D>(result: CallResult<D>): Page<ItemOf<D>> {
  const data = unwrap(result);
  if (!Array.isArray(data)) throw new TypeError('unwrapPage: the answer is not a list');
  return { data: data as ItemOf<D>[], pagination: paginationOf(result.data) };
}

/** A low-level answer as a `HelpdeskError` (null when it is a success). */
export function errorOf(res: RawResponse): HelpdeskError | null {
  return res.status >= 200 && res.status < 300 ? null : HelpdeskError.from(res.status, res.headers, res.body);
}

const WRITES = new Set(['POST', 'PATCH']);

export function createHelpdeskClient(options: HelpdeskClientOptions): HelpdeskClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const apiKey = options.apiKey ?? null;
  const baseFetch: FetchLike = options.fetch ?? ((req) => globalThis.fetch(req));
  const policy = (retries: number | undefined): RetryPolicy => ({
    retries: Math.max(0, retries ?? options.maxRetries ?? 2),
    maxWaitMs: options.maxRetryWaitMs ?? 60_000,
  });
  const raw = createFetchClient<paths, Media>({
    baseUrl,
    headers: { ...options.headers, ...(apiKey !== null ? { Authorization: `Bearer ${apiKey}` } : {}) },
    fetch: (req) => baseFetch(req),
  });

  const typed = <M extends Method>(method: M): TypedMethod<M> => {
    const upper = method.toUpperCase();
    return ((url: string, init: Record<string, any> = {}) => {
      const { idempotencyKey, retries, headers, ...rest } = init;
      const given = idempotencyKey ?? headerOf(headers, 'idempotency-key') ?? headerOf(rest.params?.header, 'idempotency-key');
      const key = given ?? (WRITES.has(upper) && options.autoIdempotencyKey !== false ? newIdempotencyKey() : undefined);
      return raw.request(method, url as never, {
        ...rest,
        headers: { ...headers, ...(key !== undefined ? { 'Idempotency-Key': key } : {}) },
        fetch: (req: Request) => sendWithRetries(baseFetch, req, policy(retries)),
      } as never);
    }) as unknown as TypedMethod<M>;
  };
  const GET = typed('get');

  async function* paginate(url: string, init: Record<string, any> = {}): AsyncIterableIterator<any> {
    const query = { ...init.params?.query };
    let page = Number(query.page ?? 1);
    for (;;) {
      const res = await (GET as any)(url, { ...init, params: { ...init.params, query: { ...query, page } } });
      const { data, pagination } = unwrapPage(res);
      for (const item of data) yield item;
      if (!hasNextPage(pagination, data.length)) return;
      page = (pagination?.page ?? page) + 1;
    }
  }

  return {
    baseUrl,
    apiKey,
    GET,
    POST: typed('post'),
    PATCH: typed('patch'),
    DELETE: typed('delete'),
    paginate: paginate as HelpdeskClient['paginate'],
    data: async (call) => unwrap(await call),
    page: async (call) => unwrapPage(await call),
    async request(method, path, opts = {}) {
      const headers = { ...options.headers, ...opts.headers };
      const req = buildRawRequest(baseUrl, apiKey, method, path, { ...opts, headers });
      return readRaw(await sendWithRetries(baseFetch, req, policy(opts.retries ?? 0)));
    },
    withKey: (key) => createHelpdeskClient({ ...options, apiKey: key }),
    raw,
  };
}
