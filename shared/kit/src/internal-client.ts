import { z } from 'zod';
import { INTERNAL_TOKEN_HEADER, type OperationDef, type Operations } from '@helpdesk/contracts';
import { ApiError } from './errors';
import { inProcessServices, requestInProcess } from './in-process';
import { registerInternalOrigin } from './telemetry/internal-origins';

/**
 * A typed client of another service's internal operations, derived from its internal manifest:
 * `internalClient(CUSTOMERS_INTERNAL, url).forRequest(token, requestId).call('getCustomerSnapshot', {params: {customerId}})`.
 * The caller's internal token travels with every call, so the callee answers within the same team
 * and partition. An answer is parsed with the operation's response schema. 404 is `null` (the
 * caller decides what "not found" means to its client); a service that cannot be reached, is too
 * slow, or answers 5xx is 503 `service_unavailable`; any other refusal is a bug of the caller.
 * A service in this process (the one-process platform) is called without a socket, the same request
 * and the same answer (docs/adr/0046). `attempt` answers every status instead, for a caller that passes
 * the callee's answer on (the gateway); `internalClientOver` takes another transport (the gateway's pools).
 */
export interface CallInput {
  params?: Record<string, string>;
  query?: Record<string, string>;
  body?: unknown;
}

export type CallResult<O extends OperationDef> = z.output<O['success']['data']> | null;

export interface InternalCalls<Ops extends Operations> {
  call<K extends keyof Ops & string>(id: K, input?: CallInput): Promise<CallResult<Ops[K]>>;
}

/** An answer other than the operation's success (a 4xx refusal or a 5xx), as the callee sent it. */
export interface Refusal {
  status: number;
  /** The error body's error, when the answer had one. */
  error: { code: string; message: string; param?: string } | null;
  /** The answer's text, for the caller's diagnostics. */
  text: string;
}
export type Attempt<O extends OperationDef> = { ok: true; data: z.output<O['success']['data']> } | ({ ok: false } & Refusal);

/** Calls bound to one request; `attempt` hands a caller that passes answers on (the gateway) every answer as it is. */
export interface InternalRequestCalls<Ops extends Operations> extends InternalCalls<Ops> {
  attempt<K extends keyof Ops & string>(id: K, input?: CallInput): Promise<Attempt<Ops[K]>>;
}

/** One request to a service and its answer, however it travels; a transport that throws an ApiError has its refusal passed on. */
export interface InternalRequest {
  method: string;
  /** The path and query, relative to the service's base URL. */
  path: string;
  /** The internal token and request id, also in `headers`, for a transport that sets its own. */
  token: string;
  requestId: string;
  headers: Record<string, string>;
  body: string | undefined;
}
export type InternalTransport = (req: InternalRequest) => Promise<{ status: number; text: string }>;

const DEFAULT_TIMEOUT_MS = 5_000;

export function internalClient<Ops extends Operations>(ops: Ops, baseUrl: string, opts: { service?: string; timeoutMs?: number } = {}) {
  return internalClientOver(ops, httpTransport(baseUrl, opts.timeoutMs ?? DEFAULT_TIMEOUT_MS), opts);
}

/** The request to the service in this process when it lives here, else over HTTP; rejects when it cannot be answered in time. */
function httpTransport(baseUrl: string, timeoutMs: number): InternalTransport {
  const base = baseUrl.replace(/\/+$/, '');
  const origin = new URL(base).origin;
  // A platform process: requests to it carry the trace context (telemetry/internal-origins.ts).
  registerInternalOrigin(origin);
  return async (req) => {
    const url = base + req.path;
    const local = inProcessServices.get(origin);
    if (local) {
      // The path as fetch would send it (dot segments resolved, characters escaped).
      const target = new URL(url);
      const a = await requestInProcess(local, { method: req.method, path: target.pathname + target.search, headers: req.headers, body: req.body ?? null, timeout: timeoutMs });
      return { status: a.status, text: a.body.toString('utf8') };
    }
    const res = await fetch(url, { method: req.method, headers: req.headers, body: req.body, signal: AbortSignal.timeout(timeoutMs) });
    return { status: res.status, text: await res.text() };
  };
}

/** The typed client over any transport (the gateway's is its pool of upstream connections). */
export function internalClientOver<Ops extends Operations>(ops: Ops, transport: InternalTransport, opts: { service?: string } = {}) {
  const unavailable = (op: OperationDef) =>
    new ApiError('service_unavailable', `The ${opts.service ?? op.service} service is unavailable. Please retry later.`);

  /** One answer, however it travelled: its status and its body's text. */
  async function send(op: OperationDef, token: string, requestId: string, input: CallInput) {
    const path = op.path.replace(/\{([A-Za-z0-9_]+)\}/g, (_, name: string) => encodeURIComponent(input.params?.[name] ?? ''));
    const query = input.query ? `?${new URLSearchParams(input.query).toString()}` : '';
    const headers: Record<string, string> = {
      [INTERNAL_TOKEN_HEADER]: token,
      'x-svc-request-id': requestId,
      ...(input.body !== undefined ? { 'content-type': 'application/json' } : {}),
    };
    const body = input.body !== undefined ? JSON.stringify(input.body) : undefined;
    try {
      return await transport({ method: op.method, path: path + query, token, requestId, headers, body });
    } catch (err) {
      if (err instanceof ApiError) throw err;
      throw unavailable(op);
    }
  }

  const dataOf = (op: OperationDef, json: { data?: unknown }) => op.success.data.parse(op.success.shape === 'bare' ? json : json.data);

  return {
    /** Calls bound to one request: its token and request id travel with every call. */
    forRequest(token: string, requestId: string): InternalRequestCalls<Ops> {
      return {
        async call(id, input = {}) {
          const op = ops[id];
          const { status, text } = await send(op, token, requestId, input);
          if (status === 404) return null;
          if (status >= 500) throw unavailable(op);
          const json = JSON.parse(text) as { data?: unknown };
          if (status !== op.success.status) throw new Error(`${op.service} answered ${status} to ${id}: ${JSON.stringify(json)}`);
          return dataOf(op, json) as CallResult<Ops[typeof id]>;
        },
        async attempt(id, input = {}) {
          const op = ops[id];
          const { status, text } = await send(op, token, requestId, input);
          if (status === op.success.status) return { ok: true, data: dataOf(op, JSON.parse(text) as { data?: unknown }) } as Attempt<Ops[typeof id]>;
          let error: Refusal['error'] = null;
          try {
            error = (JSON.parse(text) as { error?: Refusal['error'] }).error ?? null;
          } catch {
            // Not an error body (a proxy's page, an empty answer): the status says enough.
          }
          return { ok: false, status, error, text };
        },
      };
    },
  };
}
