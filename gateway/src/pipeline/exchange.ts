import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError, errorBody, type Logger, type ReadinessChecks, type SlowClientLimits } from '@helpdesk/kit';
import type { ApiKeyOperations } from '../api-keys/operations';
import type { KeyResolver, ResolvedKey } from '../auth';
import type { ClientAddress } from '../client-address';
import type { TokenMinter } from '../fast-token';
import type { Upstreams, UpstreamState } from '../proxy';
import type { ServiceCalls } from '../service-calls';
import type { Route, RouteMatch, RouteTable } from '@helpdesk/contracts';
import type { IdempotencyStore, RateLimitStore } from '../store/rate-limits-and-idempotency';
import type { StreamTokenClaims, StreamTokens } from '../stream-tokens/stream-tokens';
import type { ConsoleSessions } from '../sessions/sessions';
import type { ResolvedSession } from '../sessions/resolver';

export const BASE_PATH = '/api/v1';
export const JSON_CT = 'application/json; charset=utf-8';

/** What the steps share: the stores, the route table, the upstream services, the settings. */
export interface GatewayContext {
  resolver: KeyResolver;
  rateLimits: RateLimitStore;
  idempotency: IdempotencyStore;
  mint: TokenMinter;
  table: RouteTable;
  upstreams: Upstreams;
  /** The gateway's own typed calls to services (widget origins, sign-in, invites, pages). */
  services: ServiceCalls;
  logger: Logger;
  /** Streams being relayed (event streams, downloads): ended at once when the gateway stops. */
  openStreams: Set<{ abort(): void }>;
  bodyLimitBytes: number;
  /** How slow a client may be before it is disconnected (docs/adr/0063). */
  slowClients: SlowClientLimits;
  idempotencyTtlMs: number;
  idempotencyLockMs: number;
  /** The OpenAPI document, serialised on first use (building it costs tens of ms: not at start-up). */
  openApiJson(): string;
  /** Serves the HTML API reference under /docs (swagger-ui, assets from the npm package). */
  docs: (req: IncomingMessage, res: ServerResponse) => void;
  /** Short-lived tokens that open the event stream without a key (gateway/src/stream-tokens, docs/adr/0031). */
  streamTokens: StreamTokens;
  /** The API-key operations and invite acceptance (gateway/src/api-keys), which the gateway answers itself. */
  apiKeys?: ApiKeyOperations;
  /** What `/readyz` checks (the gateway's database, Redis): 503 naming the failing part. */
  readiness?: ReadinessChecks;
  /** Each service's state, which `/readyz` reports without failing on it (a service that is down fails its routes only). */
  upstreamStates?: () => Promise<Record<string, UpstreamState>>;
  /** The client's address behind the trusted proxies (every per-address limit). */
  clientAddress: ClientAddress;
  /** Sign-in and the console's session cookie (gateway/src/sessions, docs/adr/0068); absent without a workspace service. */
  sessions?: ConsoleSessions;
  /** Redis unreachable: a retryable 503 (fail closed), warned about at most every 10 s. */
  storeDown(err: unknown, requestId: string): ApiError;
}

/** One request on its way through the steps; each step reads what earlier ones found. */
export interface Exchange {
  req: IncomingMessage;
  res: ServerResponse;
  requestId: string;
  method: string;
  /** Path below `/api/v1` (`/teams/…`), without the query string. */
  subPath: string;
  /** `?…` or empty. */
  query: string;
  /** The browser's `Origin`, when a browser sent the request. */
  origin: string | null;
  /** The route table's answer for this method and path (null: no such path). */
  match: RouteMatch | null;
  /** The caller's key, once authenticated. */
  auth: ResolvedKey | null;
  route: Route | null;
  /** The raw JSON body (forwarded as is, never re-serialised). */
  body: Buffer | null;
  /** The claimed `Idempotency-Key` record, completed with the answer. */
  idempotency: { key: string; fingerprint: string } | null;
  /** Set when the event stream was opened with `?token=` instead of a key (`auth` is then the token's issuing key). */
  streamToken?: StreamTokenClaims;
  /** Set when the console's session cookie authenticated the request (`auth` is then the session, docs/adr/0068). */
  session?: { token: string; resolved: ResolvedSession };
}

/** What a step returns when it has answered the request: no later step runs. */
export const DONE = 'done' as const;
export type Step = (x: Exchange, g: GatewayContext) => Promise<typeof DONE | void> | typeof DONE | void;

export function sendJson(res: ServerResponse, status: number, text: string): void {
  res.statusCode = status;
  res.setHeader('content-type', JSON_CT);
  res.setHeader('content-length', Buffer.byteLength(text));
  res.end(text);
}

/** The success envelope, for what the gateway answers itself. */
export function sendEnvelope(res: ServerResponse, requestId: string, data: unknown, status = 200): void {
  sendJson(res, status, JSON.stringify({ success: true, data, meta: { requestId, timestamp: new Date().toISOString() } }));
}

export function sendError(res: ServerResponse, err: ApiError, requestId: string): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  if (err.headers) for (const k in err.headers) res.setHeader(k, err.headers[k]);
  sendJson(res, err.status, JSON.stringify(errorBody(err, requestId)));
}
