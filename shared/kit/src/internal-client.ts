import { z } from 'zod';
import { INTERNAL_TOKEN_HEADER, type OperationDef, type Operations } from '@helpdesk/contracts';
import { ApiError } from './errors';
import { inProcessServices, requestInProcess } from './in-process';

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
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const unavailable = (op: OperationDef) =>
    new ApiError('service_unavailable', `The ${opts.service ?? op.service} service is unavailable. Please retry later.`);

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
          let status: number;
          let json: { data?: unknown };
          const local = inProcessServices.get(origin);
          if (local) {
            // The path as fetch would send it (dot segments resolved, characters escaped).
            const target = new URL(url);
            let answer;
            try {
              answer = await requestInProcess(local, { method: op.method, path: target.pathname + target.search, headers, body: body ?? null, timeout: timeoutMs });
            } catch {
              throw unavailable(op);
            }
            status = answer.status;
            if (status === 404) return null;
            if (status >= 500) throw unavailable(op);
            json = JSON.parse(answer.body.toString('utf8')) as { data?: unknown };
          } else {
            let res: Response;
            try {
              res = await fetch(url, { method: op.method, headers, body, signal: AbortSignal.timeout(timeoutMs) });
            } catch {
              throw unavailable(op);
            }
            status = res.status;
            if (status === 404 || status >= 500) {
              await res.body?.cancel();
              if (status === 404) return null;
              throw unavailable(op);
            }
            json = (await res.json()) as { data?: unknown };
          }
          if (status !== op.success.status) throw new Error(`${op.service} answered ${status} to ${id}: ${JSON.stringify(json)}`);
          return op.success.data.parse(op.success.shape === 'bare' ? json : json.data) as CallResult<Ops[typeof id]>;
        },
      };
    },
  };
}
