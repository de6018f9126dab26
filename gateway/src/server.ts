import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Response } from 'express';
import { Pool } from 'undici';
import { INTERNAL_TOKEN_HEADER, isWellFormedId, UUID_RE } from '@helpdesk/contracts';
import { ApiError, errorBody, newId, sendData, type Logger } from '@helpdesk/kit';
import type { TokenMinter } from './fast-token';
import type { KeyResolver, ResolvedKey } from './auth';
import { ROUTES, RouteTable, type RouteDef } from './routes';
import type { IdempotencyStore, RateLimitStore } from './stores';

export const BASE_PATH = '/api/v1';
const WINDOW_MS = 60_000;
const WINDOW_HEADER = '60';
const JSON_CT = 'application/json; charset=utf-8';
const IDEMPOTENCY_MAX = 255;
const SLUG_RE = /^[a-z0-9][a-z0-9_-]{0,63}$/;

export interface HandlerOptions {
  resolver: KeyResolver;
  rateLimits: RateLimitStore;
  idempotency: IdempotencyStore;
  /** Mints the internal token (see fast-token.ts). */
  mint: TokenMinter;
  services: Record<string, string>;
  logger: Logger;
  routes?: readonly RouteDef[];
  bodyLimitBytes: number;
  idempotencyTtlMs: number;
  idempotencyLockMs: number;
}

function sendError(res: ServerResponse, err: ApiError, requestId: string): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  if (err.headers) for (const k in err.headers) res.setHeader(k, err.headers[k]);
  const body = JSON.stringify(errorBody(err, requestId));
  res.statusCode = err.status;
  res.setHeader('content-type', JSON_CT);
  res.setHeader('content-length', Buffer.byteLength(body));
  res.end(body);
}

/** kit's `sendData` writes through express's `res.status().json()`; this gives it that much of a raw response. */
function sendEnvelope(res: ServerResponse, requestId: string, data: unknown): void {
  const shim = {
    locals: { requestId },
    status(code: number) {
      res.statusCode = code;
      return shim;
    },
    json(body: unknown) {
      const text = JSON.stringify(body);
      res.setHeader('content-type', JSON_CT);
      res.setHeader('content-length', Buffer.byteLength(text));
      res.end(text);
      return shim;
    },
  };
  sendData(shim as unknown as Response, data);
}

function isJsonContentType(ct: string | undefined): boolean {
  if (!ct) return false;
  const semi = ct.indexOf(';');
  const media = (semi === -1 ? ct : ct.slice(0, semi)).trim().toLowerCase();
  return media === 'application/json' || (media.startsWith('application/') && media.endsWith('+json'));
}

function readBody(req: IncomingMessage, limit: number): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > limit) tooLarge = true;
      else chunks.push(c);
    });
    req.on('end', () => (tooLarge ? resolve(null) : resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size))));
    req.on('error', reject);
  });
}

interface Upstream {
  pool: Pool;
  basePath: string;
}

/** The gateway's request handler (node:http, no framework on the hot path). */
export function createHandler(opts: HandlerOptions) {
  const table = new RouteTable(opts.routes ?? ROUTES);
  const upstreams = new Map<string, Upstream>();
  for (const [name, url] of Object.entries(opts.services)) {
    const u = new URL(url);
    upstreams.set(name, {
      pool: new Pool(u.origin, { connections: 128, keepAliveTimeout: 30_000, headersTimeout: 30_000, bodyTimeout: 30_000 }),
      basePath: u.pathname.replace(/\/+$/, ''),
    });
  }
  const { resolver, logger } = opts;
  const debug = logger.isLevelEnabled('debug');
  let lastStoreWarning = 0;
  /** Redis unreachable: fail closed with a retryable 503, and warn at most every 10 s. */
  const storeDown = (err: unknown, requestId: string) => {
    const now = Date.now();
    if (now - lastStoreWarning > 10_000) {
      lastStoreWarning = now;
      logger.warn({ err, requestId }, 'rate-limit/idempotency store unavailable');
    }
    return new ApiError('service_unavailable', 'The service is temporarily unavailable. Please retry later.');
  };

  async function proxy(
    route: RouteDef,
    method: string,
    subPath: string,
    query: string,
    body: Buffer | null,
    contentType: string | undefined,
    auth: ResolvedKey,
    requestId: string,
  ): Promise<{ status: number; contentType: string | null; location: string | null; body: Buffer }> {
    const upstream = upstreams.get(route.service);
    if (!upstream) throw new ApiError('service_unavailable', 'The service for this endpoint is unavailable. Please retry later.');
    const token = opts.mint(auth.claims, requestId);
    const headers: Record<string, string> = { [INTERNAL_TOKEN_HEADER]: token, 'x-svc-request-id': requestId };
    if (body && contentType) headers['content-type'] = contentType;
    let r;
    try {
      r = await upstream.pool.request({ method: method as 'GET', path: upstream.basePath + subPath + query, headers, body });
    } catch (err) {
      if (debug) logger.debug({ err, requestId, service: route.service }, 'service unreachable');
      throw new ApiError('service_unavailable', 'The service for this endpoint is unavailable. Please retry later.');
    }
    let data: Buffer;
    try {
      data = Buffer.from(await r.body.arrayBuffer());
    } catch (err) {
      if (debug) logger.debug({ err, requestId }, 'service response interrupted');
      throw new ApiError('service_unavailable', 'The service for this endpoint is unavailable. Please retry later.');
    }
    const ct = r.headers['content-type'];
    const loc = r.headers['location'];
    return {
      status: r.statusCode,
      contentType: typeof ct === 'string' ? ct : null,
      location: typeof loc === 'string' ? loc : null,
      body: data,
    };
  }

  async function handle(req: IncomingMessage, res: ServerResponse, requestId: string): Promise<void> {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q === -1 ? url : url.slice(0, q);
    const query = q === -1 ? '' : url.slice(q);
    const method = req.method ?? 'GET';

    if (!path.startsWith(BASE_PATH) || (path.length > BASE_PATH.length && path.charCodeAt(BASE_PATH.length) !== 47)) {
      if (path === '/healthz' || path === '/readyz') {
        sendEnvelope(res, requestId, { status: 'ok', service: 'gateway' });
        return;
      }
      throw new ApiError('route_not_found', `Unrecognized request URL (${method} ${path}).`);
    }
    const subPath = path.slice(BASE_PATH.length) || '/';

    // 1. authentication (401s)
    const auth = await resolver.authenticate(req.headers.authorization);

    // 2. rate limit: every authenticated request counts, whatever it answers; all later responses carry the headers
    let hit;
    try {
      hit = await opts.rateLimits.hit(`rl:${auth.key.id}`, WINDOW_MS);
    } catch (err) {
      throw storeDown(err, requestId);
    }
    const remaining = auth.limit - hit.count;
    const resetSec = Math.ceil(hit.resetAtMs / 1000);
    res.setHeader('X-RateLimit-Limit', auth.limitHeader);
    res.setHeader('X-RateLimit-Remaining', remaining > 0 ? remaining : 0);
    res.setHeader('X-RateLimit-Reset', resetSec);
    res.setHeader('X-RateLimit-Window', WINDOW_HEADER);
    if (remaining < 0) {
      const retryAfter = Math.max(1, Math.ceil((hit.resetAtMs - Date.now()) / 1000));
      throw new ApiError('rate_limit_exceeded', `Rate limit of ${auth.limit} requests per minute exceeded. Retry after ${retryAfter} s.`, undefined, {
        headers: { 'Retry-After': String(retryAfter) },
        extra: { retryAfter },
      });
    }

    // 3. identity
    if (subPath === '/auth/whoami' || subPath === '/auth/whoami/') {
      if (method !== 'GET') throw new ApiError('method_not_allowed', `${method} is not allowed on /auth/whoami.`, undefined, { headers: { Allow: 'GET' } });
      sendEnvelope(res, requestId, {
        teamId: auth.team.id,
        teamName: auth.team.name,
        teamSlug: auth.team.slug,
        keyId: auth.key.id,
        keyType: auth.key.type,
        environment: auth.key.mode,
        createdAt: auth.key.createdAt.toISOString(),
        subscriptionStatus: auth.team.subscriptionStatus,
      });
      return;
    }

    // 4. route lookup (404, 405)
    const match = table.match(method, subPath);
    if (!match) throw new ApiError('route_not_found', `Unrecognized request URL (${method} ${subPath}).`);
    const route = match.route;
    if (!route) {
      throw new ApiError('method_not_allowed', `${method} is not allowed on this endpoint. Allowed: ${match.allow}.`, undefined, {
        headers: { Allow: match.allow },
      });
    }

    // 5. team (400 for a non-UUID team id, 403 for another team)
    const names = match.paramNames;
    const values = match.paramValues;
    for (let i = 0; i < names.length; i++) {
      if (names[i] !== 'teamId') continue;
      if (!UUID_RE.test(values[i])) throw new ApiError('invalid_id_format', `Invalid teamId '${values[i]}': a team id is a UUID.`, 'teamId');
      if (values[i].toLowerCase() !== auth.team.id) throw new ApiError('team_access_denied', 'This API key does not have access to this team.');
    }

    // 6. publishable keys: no writes, no staff resources, only public reads
    if (auth.key.type === 'publishable') {
      if (method !== 'GET') throw new ApiError('publishable_key_write', 'Publishable keys are read-only; use a secret key to create, update or delete.');
      if (route.staff) throw new ApiError('publishable_key_forbidden', 'Publishable keys cannot read this resource; use a secret key.');
      if (!route.publicRead) throw new ApiError('insufficient_permissions', 'This endpoint requires a secret key.');
    }

    // 7. permission
    if (route.permission && !auth.permissions.includes(route.permission)) {
      throw new ApiError('insufficient_permissions', `This API key lacks the permission ${route.permission}.`);
    }

    // 8. path id format (a team-chosen key such as a status key is a slug instead)
    for (let i = 0; i < names.length; i++) {
      if (names[i] === 'teamId') continue;
      if (route.slugParams?.includes(names[i])) {
        if (!SLUG_RE.test(values[i])) throw new ApiError('invalid_id_format', `Invalid ${names[i]} '${values[i]}': expected lowercase letters, digits, '_' or '-'.`, names[i]);
      } else if (!isWellFormedId(values[i])) {
        throw new ApiError('invalid_id_format', `Invalid ${names[i]} '${values[i]}': expected a UUID or a prefixed id.`, names[i]);
      }
    }

    // 9. body: JSON content type and valid JSON (the raw bytes are forwarded, never re-serialised)
    let body: Buffer | null = null;
    const contentType = req.headers['content-type'];
    if (method !== 'GET' && method !== 'HEAD') {
      const raw = await readBody(req, opts.bodyLimitBytes);
      if (raw === null) throw new ApiError('parameter_invalid', 'The request body is too large.', undefined, { status: 413 });
      if (raw.length > 0) {
        body = raw;
        // Any method that carries a body carries JSON (DELETE /tags takes one too).
        if (!isJsonContentType(contentType)) throw new ApiError('invalid_json', 'Request bodies must be JSON, sent with Content-Type: application/json.');
        try {
          JSON.parse(raw.toString('utf8'));
        } catch {
          throw new ApiError('invalid_json', 'The request body is not valid JSON.');
        }
      }
    }

    // 10. idempotency (POST and PATCH)
    let idemKey: string | null = null;
    let fingerprint = '';
    if (method === 'POST' || method === 'PATCH') {
      const header = req.headers['idempotency-key'];
      if (header !== undefined) {
        const value = Array.isArray(header) ? header.join(',') : header;
        if (value.length < 1 || value.length > IDEMPOTENCY_MAX) {
          throw new ApiError('parameter_invalid', `Idempotency-Key must be 1 to ${IDEMPOTENCY_MAX} characters.`, 'Idempotency-Key');
        }
        idemKey = `idem:${auth.team.id}:${auth.key.mode}:${value}`;
        const h = createHash('sha256').update(method).update('\n').update(subPath + query).update('\n');
        if (body) h.update(body);
        fingerprint = h.digest('hex');
        let found;
        try {
          found = await opts.idempotency.begin(idemKey, fingerprint, opts.idempotencyLockMs);
        } catch (err) {
          throw storeDown(err, requestId);
        }
        if (found) {
          if (found.fingerprint !== fingerprint) {
            throw new ApiError('idempotency_key_in_use', 'This Idempotency-Key was already used with a different method, endpoint or body.', 'Idempotency-Key');
          }
          if (found.state === 'in_progress') {
            throw new ApiError('idempotency_key_in_use', 'A request with this Idempotency-Key is still being processed. Retry later.', 'Idempotency-Key');
          }
          const replay = Buffer.from(found.body, 'base64');
          res.statusCode = found.status;
          if (found.contentType) res.setHeader('content-type', found.contentType);
          res.setHeader('content-length', replay.length);
          res.setHeader('Idempotent-Replayed', 'true');
          res.end(replay);
          return;
        }
      }
    }

    // 11. proxy
    let out;
    try {
      out = await proxy(route, method, subPath, query, body, contentType, auth, requestId);
    } catch (err) {
      if (idemKey) await opts.idempotency.release(idemKey).catch(() => {});
      throw err;
    }
    if (idemKey) {
      try {
        await opts.idempotency.complete(
          idemKey,
          { state: 'done', fingerprint, status: out.status, contentType: out.contentType, body: out.body.toString('base64') },
          opts.idempotencyTtlMs,
        );
      } catch (err) {
        logger.error({ err, requestId }, 'idempotency record not stored');
      }
    }
    res.statusCode = out.status;
    if (out.contentType) res.setHeader('content-type', out.contentType);
    if (out.location) res.setHeader('location', out.location);
    if (out.status === 204 || out.status === 304) {
      res.end();
      return;
    }
    res.setHeader('content-length', out.body.length);
    res.end(out.body);
  }

  const listener = (req: IncomingMessage, res: ServerResponse): void => {
    const requestId = newId('request');
    res.setHeader('x-svc-request-id', requestId);
    handle(req, res, requestId).then(
      () => {
        if (debug) logger.debug({ requestId, method: req.method, url: req.url, status: res.statusCode }, 'request');
      },
      (err) => {
        if (!(err instanceof ApiError)) {
          logger.error({ err, requestId }, 'unhandled gateway error');
          err = new ApiError('internal_error', 'An internal error occurred. Please retry the request.');
        } else if (debug) logger.debug({ requestId, code: err.code }, 'request refused');
        sendError(res, err, requestId);
      },
    );
  };

  return {
    listener,
    async close() {
      await Promise.all([...upstreams.values()].map((u) => u.pool.close().catch(() => {})));
    },
  };
}

/** The HTTP server; requests Node's parser rejects (e.g. a header folded over a newline) still get the error shape. */
export function createGatewayServer(listener: (req: IncomingMessage, res: ServerResponse) => void): Server {
  const server = createServer({ keepAliveTimeout: 65_000 }, listener);
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    if (err.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const requestId = newId('request');
    const tooLarge = err.code === 'HPE_HEADER_OVERFLOW';
    const body = JSON.stringify(
      errorBody(new ApiError('parameter_invalid', tooLarge ? 'Request headers are too large.' : 'Malformed HTTP request.', undefined, { status: tooLarge ? 431 : 400 }), requestId),
    );
    socket.end(
      `HTTP/1.1 ${tooLarge ? '431 Request Header Fields Too Large' : '400 Bad Request'}\r\nContent-Type: ${JSON_CT}\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nx-svc-request-id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
  return server;
}
