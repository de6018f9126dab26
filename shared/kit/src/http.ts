import express, { type ErrorRequestHandler, type Express, type Request, type RequestHandler, type Response } from 'express';
import { isUtf8 } from 'node:buffer';
import { createServer, type RequestListener, type Server } from 'node:http';
import { INTERNAL_TOKEN_HEADER, REQUEST_ID_HEADER, type InternalClaims } from '@helpdesk/contracts';
import { ApiError, errorBody } from './errors';
import type { InternalTokens } from './internal-token';
import type { Logger } from './logger';

export interface ServiceAppOptions {
  name: string;
  logger: Logger;
  tokens: InternalTokens;
  /** Mounts the service's routes; every route behind it has a verified `res.locals.ctx`. */
  routes: (app: Express) => void;
  /** Readiness: true when the service's dependencies (database, bus) answer. */
  ready?: () => boolean | Promise<boolean>;
  /** Readiness by part (`mongodb`, `broker`…): `/readyz` answers 503 naming every part that fails. */
  checks?: ReadinessChecks;
  /** Largest JSON body accepted (the gateway enforces the same). */
  bodyLimit?: string;
}

/**
 * Verifies the gateway's internal token; no valid token, no access. A per-key token seen before is
 * answered from kit's cache without a promise (docs/adr/0019); the request id is the token's, or
 * the `x-svc-request-id` header's for a per-key token.
 */
export function internalAuth(tokens: InternalTokens): RequestHandler {
  const accept = (res: Response, token: string, claims: InternalClaims) => {
    res.locals.ctx = claims;
    res.locals.internalToken = token;
    res.locals.requestId = claims.requestId;
    res.setHeader(REQUEST_ID_HEADER, claims.requestId);
  };
  return (req, res, next) => {
    const token = req.headers[INTERNAL_TOKEN_HEADER];
    if (typeof token !== 'string' || !token) return next(new ApiError('internal_token_invalid', 'Missing internal token.'));
    const header = req.headers[REQUEST_ID_HEADER];
    const requestId = typeof header === 'string' ? header : undefined;
    const cached = tokens.cached(token, requestId);
    if (cached) {
      accept(res, token, cached);
      return next();
    }
    tokens.verify(token, requestId).then(
      (claims) => {
        accept(res, token, claims);
        next();
      },
      () => next(new ApiError('internal_token_invalid', 'Invalid internal token.')),
    );
  };
}

/** True when the request has a body to parse (a length above 0, or a chunked one). */
const hasBody = (req: Request) => req.headers['transfer-encoding'] !== undefined || (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0');

/**
 * The driver's "no database to talk to" errors: the server is down, restarting or unreachable (no
 * server selected, the pool cleared, the socket closed). A 503, which a client retries and the
 * gateway does not keep for an Idempotency-Key: a write the request committed before the error is
 * answered from the service's record of the key on that retry (docs/adr/0062).
 */
const UNREACHABLE = new Set(['MongoServerSelectionError', 'MongoNetworkError', 'MongoNetworkTimeoutError', 'MongoNotConnectedError', 'MongoPoolClearedError', 'MongoPoolClosedError', 'MongoServerClosedError', 'MongoTopologyClosedError']);
export function isDatabaseUnreachable(err: unknown): boolean {
  for (let e = err as { name?: string; cause?: unknown } | undefined, depth = 0; e && depth < 3; e = e.cause as typeof e, depth++) {
    if (typeof e.name === 'string' && UNREACHABLE.has(e.name)) return true;
    // Mongoose's own wait for a lost connection (its command buffer) giving up.
    if (e.name === 'MongooseError' && /buffering timed out/.test(String((e as { message?: string }).message))) return true;
  }
  return false;
}

/** Turns any error into the documented body; unknown errors become a 500 with no internals leaked. */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err, _req, res, _next) => {
    const requestId = (res.locals.requestId as string | undefined) ?? 'req_unknown';
    let apiError: ApiError;
    if (err instanceof ApiError) apiError = err;
    else if (err?.type === 'entity.parse.failed') apiError = new ApiError('invalid_json', 'The request body is not valid JSON.');
    else if (err?.type === 'entity.verify.failed') apiError = new ApiError('invalid_json', 'The request body is not valid UTF-8.');
    else if (err?.type === 'entity.too.large') apiError = new ApiError('parameter_invalid', 'The request body is too large.', undefined, { status: 413 });
    else if (isDatabaseUnreachable(err)) {
      ((res.locals.log as Logger | undefined) ?? logger).warn({ err: err.message, code: err.name, requestId }, 'database unreachable: answered 503');
      apiError = new ApiError('service_unavailable', 'The service cannot reach its database right now. Please retry later.', undefined, { headers: { 'Retry-After': '1' } });
    } else {
      ((res.locals.log as Logger | undefined) ?? logger).error({ err, requestId }, 'unhandled error');
      apiError = new ApiError('internal_error', 'An internal error occurred. Please retry the request.');
    }
    // Every 5xx is logged with its cause where it is made (an unknown error above, at error level).
    if (err instanceof ApiError && apiError.status >= 500) ((res.locals.log as Logger | undefined) ?? logger).warn({ code: apiError.code, err: apiError.message, requestId }, `answered ${apiError.status} ${apiError.code}`);
    if (apiError.headers) for (const [k, v] of Object.entries(apiError.headers)) res.setHeader(k, v);
    res.status(apiError.status).json(errorBody(apiError, requestId));
  };
}

/** The express app every service runs: health routes, JSON parsing, internal auth, errors. */
export function createServiceApp(opts: ServiceAppOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  healthRoutes(app, opts.name, { ...opts.checks, ...(opts.ready ? { dependencies: opts.ready } : {}) });
  app.use(internalAuth(opts.tokens));
  // Every log line of a request carries its id (`logOf(res).info(...)`); the child logger is made
  // when a request first logs, not for every request.
  app.use((_req, res, next) => {
    let log: Logger | undefined;
    Object.defineProperty(res.locals, 'log', {
      configurable: true,
      enumerable: true,
      get: () => (log ??= opts.logger.child({ requestId: res.locals.requestId })),
      set: (value: Logger) => (log = value),
    });
    next();
  });
  // JSON is UTF-8 (RFC 8259): other bytes are refused, never decoded into replacement characters.
  // A request without a body (most reads) skips the parser altogether.
  const json = express.json({
    limit: opts.bodyLimit ?? '1mb',
    type: () => true,
    strict: false,
    verify: (_req, _res, buf) => {
      if (!isUtf8(buf)) throw new Error('body is not valid UTF-8');
    },
  });
  app.use((req, res, next) => (hasBody(req) ? json(req, res, next) : next()));
  opts.routes(app);
  app.use((req, _res, next) => next(new ApiError('route_not_found', `Unrecognized request URL (${req.method} ${req.path}).`)));
  app.use(errorHandler(opts.logger));
  return app;
}

/** `/healthz` (the process answers: 200) and `/readyz` (200, or 503 naming every failing check). */
function healthRoutes(app: Express, name: string, checks: ReadinessChecks): void {
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok', service: name });
  });
  app.get('/readyz', async (_req, res) => {
    const failing = await failingChecks(checks);
    res.status(failing.length ? 503 : 200).json(failing.length ? { status: 'not_ready', service: name, failing } : { status: 'ready', service: name });
  });
}

/**
 * What a service's port answers while it starts (before its app is built): `/healthz` 200,
 * `/readyz` 503 naming what start-up waits for (`checks`), anything else 503 `service_unavailable`.
 */
export function createBootApp(name: string, checks: ReadinessChecks): Express {
  const app = express();
  app.disable('x-powered-by');
  healthRoutes(app, name, checks);
  app.use((_req, res) => {
    const err = new ApiError('service_unavailable', `The ${name} service is starting. Please retry later.`);
    res.status(err.status).json(errorBody(err, 'req_unknown'));
  });
  return app;
}

/** What a process cannot serve without, by name: true when that part answers. */
export type ReadinessChecks = Record<string, () => boolean | Promise<boolean>>;

/** The names of the checks that fail (a check that throws fails), in order. */
export async function failingChecks(checks: ReadinessChecks): Promise<string[]> {
  const results = await Promise.all(Object.entries(checks).map(async ([name, check]) => ((await Promise.resolve().then(check).catch(() => false)) ? null : name)));
  return results.filter((n): n is string => n !== null);
}

/** Listens and resolves with the server once it accepts connections (an app, or any request listener). */
export function listen(app: Express | RequestListener, port: number, host = '0.0.0.0'): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer(app as RequestListener);
    server.keepAliveTimeout = 65_000;
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}

export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
    setTimeout(() => server.closeAllConnections(), 5_000).unref();
  });
}

/** The request's logger, bound to its request id. */
export function logOf(res: Response): Logger {
  return res.locals.log as Logger;
}
