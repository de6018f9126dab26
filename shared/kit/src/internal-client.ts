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
 * and the same answer (docs/adr/0046).
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

const DEFAULT_TIMEOUT_MS = 5_000;

export function internalClient<Ops extends Operations>(ops: Ops, baseUrl: string, opts: { service?: string; timeoutMs?: number } = {}) {
  const base = baseUrl.replace(/\/+$/, '');
  const origin = new URL(base).origin;
  // A platform process: requests to it carry the trace context (telemetry/internal-origins.ts).
  registerInternalOrigin(origin);
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const unavailable = (op: OperationDef) =>
    new ApiError('service_unavailable', `The ${opts.service ?? op.service} service is unavailable. Please retry later.`);
  /** The request, to the service in this process when it lives here, else over HTTP; rejects when it cannot be answered in time. */
  const send = async (url: string, req: { method: string; headers: Record<string, string>; body: string | undefined }) => {
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

  return {
    /** Calls bound to one request: its token and request id travel with every call. */
    forRequest(token: string, requestId: string): InternalCalls<Ops> {
      return {
        async call(id, input = {}) {
          const op = ops[id];
          const path = op.path.replace(/\{([A-Za-z0-9_]+)\}/g, (_, name: string) => encodeURIComponent(input.params?.[name] ?? ''));
          const query = input.query ? `?${new URLSearchParams(input.query).toString()}` : '';
          const url = base + path + query;
          const headers: Record<string, string> = {
            [INTERNAL_TOKEN_HEADER]: token,
            'x-svc-request-id': requestId,
            ...(input.body !== undefined ? { 'content-type': 'application/json' } : {}),
          };
          const body = input.body !== undefined ? JSON.stringify(input.body) : undefined;
          // One answer, however it travelled: its status and its body's text.
          let answer: { status: number; text: string };
          try {
            answer = await send(url, { method: op.method, headers, body });
          } catch {
            throw unavailable(op);
          }
          const { status } = answer;
          if (status === 404) return null;
          if (status >= 500) throw unavailable(op);
          const json = JSON.parse(answer.text) as { data?: unknown };
          if (status !== op.success.status) throw new Error(`${op.service} answered ${status} to ${id}: ${JSON.stringify(json)}`);
          return op.success.data.parse(op.success.shape === 'bare' ? json : json.data) as CallResult<Ops[typeof id]>;
        },
      };
    },
  };
}
