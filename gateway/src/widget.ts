import { createHash } from 'node:crypto';
import path from 'node:path';
import { WIDGET_ADDRESS_PER_MINUTE, WIDGET_VISITOR_PER_MINUTE } from '@helpdesk/contracts';
import { ApiError, LookupCache, type KeyClaims } from '@helpdesk/kit';
import { buildSync } from 'esbuild';
import { BASE_PATH, DONE, type Exchange, type GatewayContext, type Step } from './pipeline/exchange';
import { corsHeaders } from './pipeline/steps/cors';
import { answeredFailure, withFailure } from './access-log';
import { PUBLIC_ROOTS } from './public-roots';
import { hitWindow, limitExceeded } from './pipeline/steps/rate-limit';

/**
 * The chat widget's part of the gateway (docs/adr/0040), one step ahead of the others:
 * - `GET /widget/v1.js`: the widget's script (gateway/widget/src, bundled once with esbuild), cacheable;
 * - the widget's public endpoints (`/api/v1/teams/{teamId}/widget/…`) from a browser: the page's origin
 *   must be in the team's widget settings' `allowedOrigins` (empty: any origin), preflights included
 *   (which may then send POST and the stream's headers); another origin is 403 `origin_not_allowed`
 *   on the request itself, with CORS headers so that the page can show why (its preflight passes: the
 *   request is refused before anything runs);
 * - a per-visitor rate limit (conversation token, or address before one exists) beside the key's own.
 */

export const WIDGET_SCRIPT_PATH = `${PUBLIC_ROOTS.widget}/v1.js`;
const WIDGET_PATH = /^\/api\/v1\/teams\/([0-9a-fA-F-]{36})\/widget(?:\/|$)/;
/** How long a team's allowed origins are kept: a settings change applies within it. */
export const WIDGET_ORIGINS_TTL_MS = 5_000;
const ALLOW_HEADERS = 'Authorization, Content-Type, Last-Event-ID';

// ---------- the script ----------

let bundle: { code: Buffer; etag: string } | null = null;
function scriptBundle() {
  if (!bundle) {
    const out = buildSync({
      entryPoints: [path.join(__dirname, '../widget/src/widget.ts')],
      bundle: true,
      minify: true,
      format: 'iife',
      target: 'es2020',
      write: false,
      legalComments: 'none',
    });
    const code = Buffer.from(out.outputFiles[0].contents);
    bundle = { code, etag: `"${createHash('sha256').update(code).digest('base64url').slice(0, 27)}"` };
  }
  return bundle;
}

function serveScript(x: Exchange): void {
  const { code, etag } = scriptBundle();
  const res = x.res;
  res.setHeader('content-type', 'text/javascript; charset=utf-8');
  // v1 keeps its interface; a deploy may fix it, so caches check back within an hour (ETag: a cheap 304).
  res.setHeader('cache-control', 'public, max-age=3600');
  res.setHeader('etag', etag);
  res.setHeader('access-control-allow-origin', '*');
  res.setHeader('x-content-type-options', 'nosniff');
  if (x.req.headers['if-none-match'] === etag) {
    res.statusCode = 304;
    res.end();
    return;
  }
  res.statusCode = 200;
  res.setHeader('content-length', code.length);
  res.end(x.method === 'HEAD' ? undefined : code);
}

// ---------- allowed origins ----------

/** The gateway sees no settings write: a change applies when its entry expires (a plain TTL cache). */
const origins = new LookupCache<string[]>({ enabled: true, ttlMs: WIDGET_ORIGINS_TTL_MS, maxEntries: 10_000 });

/** The team's allowed origins, from the workspace service's widget settings (one list for both partitions). */
function allowedOrigins(g: GatewayContext, teamId: string, requestId: string): Promise<string[]> {
  return origins.get(teamId, () => loadAllowedOrigins(g, teamId, requestId));
}

async function loadAllowedOrigins(g: GatewayContext, teamId: string, requestId: string): Promise<string[]> {
  const claims: KeyClaims = { teamId, mode: 'live', keyId: 'gateway', keyType: 'internal', memberId: null, permissions: [] };
  const answer = await g.services.workspace.forRequest(g.mint(claims, requestId), requestId).attempt('getWidgetSettings', { params: { teamId } });
  if (!answer.ok) {
    throw withFailure(new ApiError('service_unavailable', 'The widget settings cannot be read now. Please retry later.'), answeredFailure('workspace', answer.status, Buffer.from(answer.text)));
  }
  return (answer.data.allowedOrigins ?? []).map((o) => o.toLowerCase());
}

const refused = (origin: string) =>
  new ApiError('origin_not_allowed', `The widget of this team may not be used from ${origin}: add it to the widget settings' allowedOrigins.`);

const originIn = (list: string[], origin: string) => list.length === 0 || list.includes(origin.toLowerCase());

// ---------- the step ----------

export const widget: Step = async (x, g) => {
  const url = x.req.url ?? '/';
  // Every request passes here: one substring search is all the others pay.
  if (!url.includes('/widget')) return;
  const q = url.indexOf('?');
  const pathname = q === -1 ? url : url.slice(0, q);
  if (pathname === WIDGET_SCRIPT_PATH && (x.method === 'GET' || x.method === 'HEAD')) {
    serveScript(x);
    return DONE;
  }
  if (!pathname.startsWith(BASE_PATH)) return;
  const m = WIDGET_PATH.exec(pathname);
  if (!m) return;
  const teamId = m[1].toLowerCase();
  const origin = typeof x.req.headers.origin === 'string' && x.req.headers.origin ? x.req.headers.origin : null;

  // Checked before the key (a preflight has none). A page of another origin may read why it is refused
  // (issue 34 item 11): its preflight passes, so the browser sends the request, which is refused here
  // with CORS headers before anything runs; the widget then shows the 403's message, not a network error.
  const allowed = !origin || originIn(await allowedOrigins(g, teamId, x.requestId), origin);
  if (origin && x.method === 'OPTIONS' && x.req.headers['access-control-request-method']) {
    x.res.statusCode = 204;
    x.res.setHeader('Access-Control-Allow-Origin', origin);
    x.res.setHeader('Access-Control-Allow-Methods', 'GET, POST');
    x.res.setHeader('Access-Control-Allow-Headers', ALLOW_HEADERS);
    x.res.setHeader('Access-Control-Max-Age', '600');
    x.res.setHeader('Vary', 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers');
    x.res.end();
    return DONE;
  }
  if (!allowed) {
    corsHeaders(x, origin!);
    throw refused(origin!);
  }

  const authorization = x.req.headers.authorization;
  // One visitor: their conversation's token once they have one, their address before.
  const token = q === -1 ? null : new URLSearchParams(url.slice(q + 1)).get('conversationToken');
  const visitor = token ? `t:${createHash('sha256').update(token).digest('base64url')}` : `a:${g.clientAddress(x.req)}`;
  const hit = await hitWindow(x, g, `rlw:${teamId}:${visitor}`);
  const limit = token ? WIDGET_VISITOR_PER_MINUTE : WIDGET_ADDRESS_PER_MINUTE;
  if (hit.count > limit) {
    // A browser may read why (its origin passed above), as with any publishable key's answer.
    if (origin && typeof authorization === 'string' && authorization.startsWith('Bearer pk_')) corsHeaders(x, origin);
    throw limitExceeded(`This visitor's limit of ${limit} requests per minute is exceeded.`, hit.resetAtMs);
  }
};
