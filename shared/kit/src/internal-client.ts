import { z } from 'zod';
import { INTERNAL_TOKEN_HEADER, type OperationDef, type Operations } from '@helpdesk/contracts';
import { ApiError } from './errors';

/**
 * A typed client of another service's internal operations, derived from its internal manifest:
 * `internalClient(CUSTOMERS_INTERNAL, url).forRequest(token, requestId).call('getCustomerSnapshot', {params: {customerId}})`.
 * The caller's internal token travels with every call, so the callee answers within the same team
 * and partition. An answer is parsed with the operation's response schema. 404 is `null` (the
 * caller decides what "not found" means to its client); a service that cannot be reached, is too
 * slow, or answers 5xx is 503 `service_unavailable`; any other refusal is a bug of the caller.
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
          let res: Response;
          try {
            res = await fetch(base + path + query, {
              method: op.method,
              headers: {
                [INTERNAL_TOKEN_HEADER]: token,
                'x-svc-request-id': requestId,
                ...(input.body !== undefined ? { 'content-type': 'application/json' } : {}),
              },
              body: input.body !== undefined ? JSON.stringify(input.body) : undefined,
              signal: AbortSignal.timeout(timeoutMs),
            });
          } catch {
            throw unavailable(op);
          }
          if (res.status === 404 || res.status >= 500) {
            await res.body?.cancel();
            if (res.status === 404) return null;
            throw unavailable(op);
          }
          const json = (await res.json()) as { data?: unknown };
          if (res.status !== op.success.status) throw new Error(`${op.service} answered ${res.status} to ${id}: ${JSON.stringify(json)}`);
          return op.success.data.parse(op.success.shape === 'bare' ? json : json.data) as CallResult<Ops[typeof id]>;
        },
      };
    },
  };
}
