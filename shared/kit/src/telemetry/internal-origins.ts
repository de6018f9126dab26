/**
 * Trace context never leaves the platform (issue 30): the HTTP client instrumentations (undici, which
 * `fetch` uses, and node's http) trace and propagate `traceparent` only for requests to the platform's
 * own processes; a request anywhere else (a customer's webhook receiver, a mail provider's HTTP API,
 * an AI server) gets neither a client span nor any trace header.
 *
 * The platform's origins: each internal client's base URL (`internalClient` registers it), the origins
 * in SERVICE_URLS (the gateway's upstreams) and in the `<SERVICE>_URL` variables services call each
 * other with (CUSTOMERS_URL, WORKSPACE_URL …), read once when tracing starts.
 */
const origins = new Set<string>();
let seeded = false;

const SERVICE_URL_VARS = /^(TICKETING|CUSTOMERS|WEBHOOKS|KNOWLEDGE|WORKSPACE|COMMUNITY|NOTIFICATIONS|DATAOPS|GAME|GATEWAY)_URL$/;

function originOf(url: string): string | null {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}

/** Marks `url`'s origin as one of the platform's processes: requests to it carry the trace context. */
export function registerInternalOrigin(url: string): void {
  const origin = originOf(url);
  if (origin && origin !== 'null') origins.add(origin);
}

/** Reads the platform's origins from the environment (SERVICE_URLS, `<SERVICE>_URL`). */
export function seedInternalOrigins(env: NodeJS.ProcessEnv = process.env): void {
  seeded = true;
  for (const part of (env.SERVICE_URLS ?? '').split(',')) {
    const eq = part.indexOf('=');
    if (eq > 0) registerInternalOrigin(part.slice(eq + 1).trim());
  }
  for (const [name, value] of Object.entries(env)) if (value && SERVICE_URL_VARS.test(name)) registerInternalOrigin(value);
}

/** Whether a request to `url` (or an origin) stays inside the platform. */
export function isInternalOrigin(url: string): boolean {
  if (!seeded) seedInternalOrigins();
  const origin = originOf(url);
  return origin !== null && origins.has(origin);
}
