import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import Redis from 'ioredis';
import { ApiError, closeServer, SLOW_CLIENT_LIMITS, type InternalTokens, type Logger, type SecretBox, type SlowClientLimits } from '@helpdesk/kit';
import { accessLogged, describeError, withFailure } from './access-log';
import { adminOver, openRepository, type GatewayAdmin } from './admin';
import { apiKeyOperations } from './api-keys/operations';
import { workspaceLink } from './api-keys/workspace-link';
import { KeyResolver } from './auth';
import { clientAddressOf, requestProtocolOf } from './client-address';
import { createConsoleSessions } from './sessions/sessions';
import { tokenMinter } from './fast-token';
import { DEFAULT_PUBLISHABLE_PER_MINUTE, DEFAULT_SECRET_PER_MINUTE, routedServices } from './config';
import { buildOpenApiDocument, PUBLIC_OPERATIONS, RouteTable, type OperationDef } from '@helpdesk/contracts';
import { docsApp } from './docs';
import { withBillingPages } from './billing-pages';
import { withConsole } from './console';
import { withHelpCenter } from './help-center';
import { createListener } from './pipeline';
import type { GatewayContext } from './pipeline/exchange';
import { Upstreams, type ServiceTargets } from './proxy';
import { serviceCalls, upstreamTransport } from './service-calls';
import { publicRootsOnly } from './public-roots';
import { StreamTokens } from './stream-tokens/stream-tokens';
import { BASE_PATH, createGatewayServer } from './server';
import {
  MemoryIdempotencyStore,
  MemoryRateLimitStore,
  RedisIdempotencyStore,
  RedisRateLimitStore,
  type IdempotencyStore,
  type RateLimitStore,
} from './store/rate-limits-and-idempotency';

export interface GatewayOptions {
  /** 0 = any free port. */
  port: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** The gateway's own database (`memory:` = in-memory teams and keys, for tests of other parts only). */
  mongoUrl: string;
  /** Default 'gateway'. */
  dbName?: string;
  /** Absent = in-process rate-limit and idempotency store (one gateway process only). */
  redisUrl?: string;
  tokens: InternalTokens;
  /**
   * Service name → base URL, e.g. `{ ticketing: 'http://127.0.0.1:41234' }`, or its replicas' base
   * URLs, taken in turn (docs/adr/0075): any subset of the manifest's services; the routes of the
   * others answer 503 `service_unavailable`.
   */
  services: Record<string, ServiceTargets>;
  /**
   * The proxies in front of the gateway (IPs, CIDRs; TRUSTED_PROXIES): only their `X-Forwarded-For`
   * is believed, for the client address of per-address limits. Default: none (the peer's address).
   */
  trustedProxies?: readonly string[];
  logger: Logger;
  /** Per-key requests per minute for this deployment (teams may override). Defaults 120 / 60. */
  rateLimits?: { secretPerMinute?: number; publishablePerMinute?: number };
  /** Help center pages a minute per client address (docs/adr/0016). Default 300. */
  helpCenterPerMinute?: number;
  /** How long a resolved key stays cached; revocation takes effect within it. Default 5000 ms; 0 = no cache. */
  keyCacheTtlMs?: number;
  /** Prefix of every Redis key the gateway writes. Default `hd:gw:`. */
  redisKeyPrefix?: string;
  /** How long a replayable response is kept. Default 24 h. */
  idempotencyTtlMs?: number;
  /** Lease of the in-progress lock (a crashed gateway frees the key after it). Default 60 s. */
  idempotencyLockMs?: number;
  /** Largest request body. Default 1 MiB. */
  bodyLimitBytes?: number;
  /** How slow a client may be (headers, then the body's rate) before it is disconnected. Default kit's SLOW_CLIENT_LIMITS (10 s, 1 KiB/s). */
  slowClients?: SlowClientLimits;
  /** Replaces the rate-limit and idempotency stores (tests of a store that is down). */
  stores?: { rateLimits: RateLimitStore; idempotency: IdempotencyStore };
  /** Seals stream tokens (docs/adr/0031); every gateway of a deployment needs the same. Default: random (this process only). */
  streamTokenSecret?: string;
  /** The key of secrets at rest (SECRETS_KEY): Idempotency-Key answers kept in Redis are sealed with it (docs/adr/0067). */
  secrets?: SecretBox;
  /** How long a console session's look-up is kept; its revocation takes effect within it. Default 2000 ms (docs/adr/0068). */
  sessionCacheTtlMs?: number;
  /** Replaces the API manifest's public operations (tests of the gateway alone). */
  operations?: Record<string, OperationDef>;
  /**
   * An event stream read from a service in this process (the one-process platform) drops a client
   * with more than this unread, as the service itself does over HTTP (docs/adr/0073). Default 1 MiB,
   * the notifications service's default; the one-process platform passes the service's own.
   */
  streamMaxBufferedBytes?: number;
  /** Where the agent console's build is (default gateway/console/dist; tests serve a fixture). */
  consoleDistDir?: string;
}

export interface RunningGateway {
  /** `http://host:port/api/v1` */
  url: string;
  port: number;
  admin: GatewayAdmin;
  stop(): Promise<void>;
}

/** The rate-limit and idempotency stores: the given ones, Redis when configured, else in memory. */
async function openStores(opts: GatewayOptions): Promise<{ redis: Redis | null; rateLimits: RateLimitStore; idempotency: IdempotencyStore }> {
  if (opts.stores) return { redis: null, ...opts.stores };
  if (opts.redisUrl) {
    const redis = new Redis(opts.redisUrl, { enableAutoPipelining: true, maxRetriesPerRequest: 2, lazyConnect: true });
    await redis.connect();
    const prefix = opts.redisKeyPrefix ?? 'hd:gw:';
    return { redis, rateLimits: new RedisRateLimitStore(redis, prefix), idempotency: new RedisIdempotencyStore(redis, prefix, false, opts.secrets) };
  }
  return { redis: null, rateLimits: new MemoryRateLimitStore(), idempotency: new MemoryIdempotencyStore() };
}

/** The gateway's own calls to a workspace of several replicas answer within this (kit's internal client's default). */
const WORKSPACE_CALL_TIMEOUT_MS = 5_000;

export async function startGateway(opts: GatewayOptions): Promise<RunningGateway> {
  const host = opts.host ?? '127.0.0.1';
  const repo = await openRepository(opts.mongoUrl, opts.dbName ?? 'gateway');
  const { redis, rateLimits, idempotency } = await openStores(opts);
  const upstreams = new Upstreams(opts.services, opts.logger, { streamMaxBufferedBytes: opts.streamMaxBufferedBytes });
  // The gateway's own calls to the workspace: kit's client at its URL, or over the upstream pools to its replicas.
  const workspaceUrls = typeof opts.services.workspace === 'string' ? [opts.services.workspace] : [...new Set(opts.services.workspace ?? [])];
  const workspaceTarget = workspaceUrls.length === 0 ? undefined : workspaceUrls.length === 1 ? workspaceUrls[0] : upstreamTransport(upstreams, 'workspace', WORKSPACE_CALL_TIMEOUT_MS);
  // With a workspace service, keys carry their member's role and teams get an owner (docs/adr/0012).
  const workspace = workspaceTarget ? workspaceLink(workspaceTarget, opts.tokens) : undefined;
  const resolver = new KeyResolver({
    repo,
    workspace,
    logger: opts.logger,
    ttlMs: opts.keyCacheTtlMs ?? 5000,
    secretPerMinute: opts.rateLimits?.secretPerMinute ?? DEFAULT_SECRET_PER_MINUTE,
    publishablePerMinute: opts.rateLimits?.publishablePerMinute ?? DEFAULT_PUBLISHABLE_PER_MINUTE,
  });
  const operations = opts.operations ?? PUBLIC_OPERATIONS;
  const clientAddress = clientAddressOf(opts.trustedProxies);
  const calls = serviceCalls(upstreams);
  // Sign-in and the console's session cookie need the workspace service, which keeps links and sessions (docs/adr/0068).
  const sessions = workspaceTarget
    ? createConsoleSessions({
        workspaceUrl: workspaceTarget,
        tokens: opts.tokens,
        repo,
        services: calls,
        secretPerMinute: opts.rateLimits?.secretPerMinute ?? DEFAULT_SECRET_PER_MINUTE,
        protocol: requestProtocolOf(opts.trustedProxies),
        clientAddress,
        cacheTtlMs: opts.sessionCacheTtlMs,
      })
    : undefined;
  /** A stream token's issuer: a console session, or a key (docs/adr/0031, 0068). */
  const streamIssuers = { authenticateHash: (hash: string) => sessions?.resolver.issuerOf(hash) ?? resolver.authenticateHash(hash) };
  const services = routedServices(operations);
  const admin = adminOver(repo, () => resolver.invalidate(), workspace);
  let lastStoreWarning = 0;
  /** The store being down, logged at most every 10 s (every request that meets it would log otherwise). */
  const warnStoreDown = (err: unknown, requestId: string) => {
    const now = Date.now();
    if (now - lastStoreWarning > 10_000) {
      lastStoreWarning = now;
      opts.logger.warn({ err, requestId }, 'rate-limit/idempotency store unavailable');
    }
  };
  let openApiJson: string | undefined;
  const context: GatewayContext = {
    openStreams: new Set(),
    resolver,
    rateLimits,
    idempotency,
    mint: tokenMinter(opts.tokens),
    table: new RouteTable(operations),
    upstreams,
    services: calls,
    logger: opts.logger,
    bodyLimitBytes: opts.bodyLimitBytes ?? 1024 * 1024,
    slowClients: opts.slowClients ?? SLOW_CLIENT_LIMITS,
    idempotencyTtlMs: opts.idempotencyTtlMs ?? 24 * 60 * 60 * 1000,
    idempotencyLockMs: opts.idempotencyLockMs ?? 60_000,
    openApiJson: () => (openApiJson ??= JSON.stringify(buildOpenApiDocument(operations))),
    readiness: {
      mongodb: () => repo.ready?.() ?? true,
      ...(redis ? { redis: () => redis!.status === 'ready' } : {}),
    },
    upstreamStates: () => upstreams.states(services),
    clientAddress,
    docs: docsApp(),
    streamTokens: new StreamTokens(opts.streamTokenSecret ?? randomBytes(32).toString('hex'), streamIssuers, undefined, sessions?.streamIssuer),
    sessions,
    apiKeys: apiKeyOperations({ repo, admin, resolver, services: calls, logger: opts.logger, workspace }),
    storeDown(err, requestId) {
      warnStoreDown(err, requestId);
      return withFailure(new ApiError('service_unavailable', 'The service is temporarily unavailable. Please retry later.'), {
        upstream: redis ? 'redis' : 'store',
        what: 'rate-limit/idempotency store unavailable',
        error: describeError(err),
      });
    },
  };
  const pageDeps = { teams: repo, mint: context.mint, services: calls, logger: opts.logger, rateLimits, warnStoreDown, helpCenterPerMinute: opts.helpCenterPerMinute, clientAddress };
  const api = createListener(context);
  const server = createGatewayServer(accessLogged(opts.logger, publicRootsOnly(withConsole(withBillingPages(pageDeps, withHelpCenter(pageDeps, api)), { distDir: opts.consoleDistDir }), api)), opts.slowClients);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const urlHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  let stopping: Promise<void> | null = null;
  return {
    url: `http://${urlHost}:${port}${BASE_PATH}`,
    port,
    admin,
    stop() {
      stopping ??= (async () => {
        // Open event streams and downloads end now: they would hold the server's close for its grace.
        for (const stream of context.openStreams) stream.abort();
        await closeServer(server);
        await upstreams.close();
        await rateLimits.close();
        await idempotency.close();
        if (redis) await redis.quit().catch(() => {});
        await repo.close();
      })();
      return stopping;
    },
  };
}

export { createGatewayAdmin, effectivePermissions, AdminError, type GatewayAdmin, type CreateKeyInput, type OwnerInput } from './admin';
export { workspaceLink, type WorkspaceLink } from './api-keys/workspace-link';
export { gatewayEnvSchema, parseServiceUrls, type GatewayEnv } from './config';
export { clientAddressOf, parseTrustedProxies, type ClientAddress } from './client-address';
export { publicRootPaths } from './public-roots';
export { CONSOLE_CSP, ensureConsoleBuilt } from './console';
export type { UpstreamState } from './proxy';
export { STEPS } from './pipeline';
export type { Team, ApiKeyRecord, TeamRateLimits, SubscriptionStatus } from './store/types';
export type { RateLimitStore, IdempotencyStore, IdempotencyRecord } from './store/rate-limits-and-idempotency';
export { MemoryRateLimitStore, MemoryIdempotencyStore, RedisRateLimitStore, RedisIdempotencyStore } from './store/rate-limits-and-idempotency';
