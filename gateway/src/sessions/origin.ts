import type { IncomingMessage } from 'node:http';
import type { RequestProtocol } from '../client-address';

/**
 * The platform's own origin as this request reached it: the scheme (the connection's, or a trusted
 * proxy's `X-Forwarded-Proto`) and the `Host`. A page of another site cannot make a browser send
 * another `Host`, so an `Origin` equal to it is the platform's own pages (docs/adr/0068).
 */
export function ownOriginOf(req: IncomingMessage, protocol: RequestProtocol): string | null {
  const host = req.headers.host;
  if (!host) return null;
  return normalOrigin(`${protocol(req)}://${host}`);
}

/** An origin as browsers send it (lowercase, no default port), or null when it is none. */
export function normalOrigin(value: string): string | null {
  try {
    const u = new URL(value);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.origin : null;
  } catch {
    return null;
  }
}

/**
 * A browser request another site's page made: an `Origin` other than the platform's own, or
 * `Sec-Fetch-Site` saying it came from another site (or a sibling subdomain).
 */
export function fromAnotherSite(req: IncomingMessage, origin: string | null, own: string | null): boolean {
  const site = req.headers['sec-fetch-site'];
  if (site === 'cross-site' || site === 'same-site') return true;
  return origin !== null && (own === null || normalOrigin(origin) !== own);
}
