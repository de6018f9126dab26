import { DONE, type Exchange, type Step } from '../exchange';

/**
 * CORS (docs/adr/0008). Browsers may use publishable keys (the spec: "safe in client code"), never
 * secret keys. A preflight carries no key, so it is answered at once for GET, the one method a
 * publishable key may use; a browser then never sends a write. The real request gets CORS headers
 * only when its key turns out to be publishable (`allowBrowser`), so a page holding a secret key
 * cannot read any answer.
 */
const ALLOW_HEADERS = 'Authorization, Content-Type, Idempotency-Key';
const EXPOSE_HEADERS = 'x-svc-request-id, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, X-RateLimit-Window, Retry-After, Idempotent-Replayed';
export const PREFLIGHT_MAX_AGE_SECONDS = 600;

export function corsHeaders(x: Exchange, origin: string): void {
  x.res.setHeader('Access-Control-Allow-Origin', origin);
  x.res.setHeader('Access-Control-Expose-Headers', EXPOSE_HEADERS);
  x.res.setHeader('Vary', 'Origin');
}

/** Step: answers a preflight (`OPTIONS` with `Origin` and `Access-Control-Request-Method`) without a key. */
export const preflight: Step = (x) => {
  const origin = x.req.headers.origin;
  x.origin = typeof origin === 'string' && origin ? origin : null;
  if (x.method !== 'OPTIONS' || !x.origin || !x.req.headers['access-control-request-method']) return;
  x.res.statusCode = 204;
  x.res.setHeader('Access-Control-Allow-Origin', x.origin);
  x.res.setHeader('Access-Control-Allow-Methods', 'GET');
  x.res.setHeader('Access-Control-Allow-Headers', ALLOW_HEADERS);
  x.res.setHeader('Access-Control-Max-Age', String(PREFLIGHT_MAX_AGE_SECONDS));
  x.res.setHeader('Vary', 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers');
  x.res.end();
  return DONE;
};

/**
 * Step (after authentication): a browser request with a publishable key may read its answer, errors
 * included; so may an event stream opened with a stream token (made for browsers: docs/adr/0031).
 */
export const allowBrowser: Step = (x) => {
  if (x.origin && (x.auth?.key.type === 'publishable' || x.streamToken)) corsHeaders(x, x.origin);
};

/** A 401 to a browser that sent a publishable-looking key: it may read why (the key is wrong or expired). */
export function corsForRefusedKey(x: Exchange): void {
  if (!x.origin || x.auth) return;
  const header = x.req.headers.authorization;
  if ((typeof header === 'string' && header.startsWith('Bearer pk_')) || (header === undefined && x.match?.route?.op.stream === true && x.query.includes('token='))) {
    corsHeaders(x, x.origin);
  }
}
