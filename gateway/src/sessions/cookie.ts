import type { IncomingMessage } from 'node:http';
import { SESSION_COOKIE } from '@helpdesk/contracts';

/**
 * The console's session cookie (docs/adr/0068): HttpOnly (no script reads it), SameSite=Strict (no
 * other site's page sends it), on the API's path only, `Secure` when the request came over https.
 */
export const SESSION_COOKIE_PATH = '/api/v1';

/** The session cookie's value in a `Cookie` header (the first one of that name), or null. */
export function sessionCookieOf(req: IncomingMessage): string | null {
  const header = req.headers.cookie;
  if (!header) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq === -1 || part.slice(0, eq).trim() !== SESSION_COOKIE) continue;
    const value = part.slice(eq + 1).trim();
    return value.startsWith('"') && value.endsWith('"') ? value.slice(1, -1) : value;
  }
  return null;
}

const attributes = (secure: boolean, maxAgeSeconds: number) =>
  `Path=${SESSION_COOKIE_PATH}; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;

/** `Set-Cookie` of a new session, kept by the browser until the session's maximum age. */
export const sessionCookie = (token: string, secure: boolean, maxAgeSeconds: number) => `${SESSION_COOKIE}=${token}; ${attributes(secure, maxAgeSeconds)}`;

/** `Set-Cookie` that removes the cookie (sign-out). */
export const clearedSessionCookie = (secure: boolean) => `${SESSION_COOKIE}=; ${attributes(secure, 0)}`;
