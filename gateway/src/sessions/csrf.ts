import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * The CSRF token of a session (docs/adr/0068): `<nonce>.<HMAC-SHA256(session token, nonce)>`.
 * Stateless and bound to the session: only a holder of the cookie's value (the gateway) can make
 * one, so a page of another site cannot, and any number of fresh ones stay valid (a nonce per answer
 * keeps the token from being a fixed secret in every response body).
 */
const mac = (sessionToken: string, nonce: string) => createHmac('sha256', sessionToken).update(`csrf:${nonce}`).digest('base64url');

export function newCsrfToken(sessionToken: string): string {
  const nonce = randomBytes(16).toString('base64url');
  return `${nonce}.${mac(sessionToken, nonce)}`;
}

/** Whether `value` (the X-CSRF-Token header) is a token of this session. */
export function validCsrfToken(sessionToken: string, value: string | string[] | undefined): boolean {
  if (typeof value !== 'string' || value.length > 200) return false;
  const dot = value.indexOf('.');
  if (dot <= 0) return false;
  const given = Buffer.from(value.slice(dot + 1));
  const expected = Buffer.from(mac(sessionToken, value.slice(0, dot)));
  return given.length === expected.length && timingSafeEqual(given, expected);
}
