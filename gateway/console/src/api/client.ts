import { createHelpdeskClient, HelpdeskError, type components } from '@helpdesk/client';

/**
 * The one way the console talks to the platform: the typed client over the public API, on this origin,
 * with the member's session cookie (`credentials: 'include'`) and, on every write, the session's CSRF
 * token (a middleware). No key ever reaches the browser; the console holds no rule of its own.
 */
export const API_BASE = `${window.location.origin}/api/v1`;

let csrfToken: string | null = null;
/** The session's CSRF token, sent as `X-CSRF-Token` with every write (docs/adr/0068). */
export function setCsrfToken(token: string | null): void {
  csrfToken = token;
}

const listeners = new Set<(err: HelpdeskError) => void>();
/** Called with every 401 the API answers: the session ended (signed out elsewhere, revoked, expired). */
export function onUnauthorized(listener: (err: HelpdeskError) => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export const api = createHelpdeskClient({
  baseUrl: API_BASE,
  apiKey: null,
  fetch: (req) => fetch(req, { credentials: 'include' }),
});

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);
api.raw.use({
  onRequest({ request }) {
    if (csrfToken && !SAFE.has(request.method)) request.headers.set('X-CSRF-Token', csrfToken);
    return request;
  },
  async onResponse({ response, request }) {
    // The session probe's own 401 is the signed-out state, not an ending session.
    if (response.status === 401 && !request.url.endsWith('/auth/session')) {
      const err = HelpdeskError.from(401, response.headers, await response.clone().json().catch(() => undefined));
      for (const l of listeners) l(err);
    }
    return response;
  },
});

export { HelpdeskError };
export type Schemas = components['schemas'];
export type Ticket = Schemas['Ticket'];
export type Message = Schemas['Message'];
export type Member = Schemas['Member'];
export type Customer = Schemas['Customer'];
export type SavedView = Schemas['SavedView'];
export type CustomField = Schemas['CustomField'];
export type PlayerStats = Schemas['PlayerStats'];
export type BossState = Schemas['BossState'];
export type Quest = Schemas['Quest'];
export type Leaderboard = Schemas['Leaderboard'];
export type Webhook = Schemas['Webhook'];
export type WebhookDelivery = Schemas['WebhookDelivery'];
export type ApiKey = Schemas['ApiKey'];
export type Invite = Schemas['Invite'];
export type WidgetSettings = Schemas['WidgetSettings'];
export type FeatureFlags = Schemas['FeatureFlags'];

/** What a refusal says to a person: the API's message, else the status. */
export function messageOf(err: unknown): string {
  if (err instanceof HelpdeskError) {
    const body = err.body as { error?: { message?: string } } | undefined;
    return body?.error?.message ?? err.message;
  }
  return err instanceof Error ? err.message : String(err);
}
