import { customerSnapshotSchema, INTERNAL_TOKEN_HEADER, type CustomerSnapshot } from '@helpdesk/contracts';
import { ApiError } from '@helpdesk/kit';

/**
 * Ticketing asks the customers service (its documented internal endpoints, services/customers
 * README) only where it needs an answer at once: does this customer exist, who has this email,
 * create the customer a ticket names. Everything else (search, expand) reads the projection that
 * `customer.*` events keep (./model.ts). The caller's internal token is forwarded, so the
 * customers service answers within the same team and partition.
 */
export interface CustomerLookup {
  byId(id: string): Promise<CustomerSnapshot | null>;
  byEmail(email: string): Promise<CustomerSnapshot | null>;
  /** A customer with only a name (email null), for a ticket that names only `customerName`. */
  create(name: string): Promise<CustomerSnapshot>;
}

const TIMEOUT_MS = 5_000;

function unavailable(): ApiError {
  return new ApiError('service_unavailable', 'The customers service is unavailable. Please retry later.');
}

export function customersClient(baseUrl: string) {
  const base = baseUrl.replace(/\/+$/, '');
  return {
    /** A lookup bound to one request: its token and request id travel with every call. */
    forRequest(token: string, requestId: string): CustomerLookup {
      const call = async (method: 'GET' | 'POST', path: string, body?: unknown): Promise<CustomerSnapshot | null> => {
        let res: Response;
        try {
          res = await fetch(base + path, {
            method,
            headers: { [INTERNAL_TOKEN_HEADER]: token, 'x-svc-request-id': requestId, ...(body ? { 'content-type': 'application/json' } : {}) },
            body: body ? JSON.stringify(body) : undefined,
            signal: AbortSignal.timeout(TIMEOUT_MS),
          });
        } catch {
          throw unavailable();
        }
        if (res.status === 404) {
          await res.body?.cancel();
          return null;
        }
        if (res.status >= 500) {
          await res.body?.cancel();
          throw unavailable();
        }
        const json = (await res.json()) as { data?: unknown };
        if (!res.ok) throw new Error(`customers service answered ${res.status} to ${method} ${path}: ${JSON.stringify(json)}`);
        return customerSnapshotSchema.parse(json.data);
      };
      return {
        byId: (id) => call('GET', `/internal/customers/${encodeURIComponent(id)}`),
        byEmail: (email) => call('GET', `/internal/customers?email=${encodeURIComponent(email)}`),
        create: async (name) => (await call('POST', '/internal/customers', { name }))!,
      };
    },
  };
}

export type CustomersClient = ReturnType<typeof customersClient>;
