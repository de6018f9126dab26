import type { IncomingMessage, ServerResponse } from 'node:http';
import { PORTAL_SESSION_RE, STRIPE_WEBHOOK_MAX_BYTES, type Permission, type WORKSPACE_INTERNAL } from '@helpdesk/contracts';
import { newId, type Attempt, type KeyClaims, type Logger } from '@helpdesk/kit';
import type { TokenMinter } from './fast-token';
import { htmlPage, messagePage, sendHtml } from './html-page';
import { answeredFailure, describeError, failureOf, noteAccess, withFailure } from './access-log';
import { PUBLIC_ROOTS } from './public-roots';
import type { ServiceCalls } from './service-calls';
import type { KeyRepository } from './store/types';

/**
 * The local billing portal (docs/adr/0024): `/billing/portal/{teamId}/{session}`, served without a
 * key; the session secret in the URL (from `POST /billing/portal`) is the credential. GET shows the
 * subscription and the plans; a form POST chooses a plan or cancels, then the browser goes to the
 * `returnUrl` stored with the session, never to a URL of the request (no open redirect). The
 * workspace service decides everything; unknown team, unknown or expired session answer one 404 page.
 *
 * And Stripe's webhook, `POST /billing/stripe/webhook`: the raw body and its `Stripe-Signature`
 * header go to the workspace, which verifies them with the SDK (it holds the signing secret).
 */
export interface BillingPagesDeps {
  teams: Pick<KeyRepository, 'getTeam'>;
  mint: TokenMinter;
  services: Pick<ServiceCalls, 'workspace'>;
  logger: Logger;
}

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

const PREFIX = `${PUBLIC_ROOTS.billing}/portal`;
const STRIPE_WEBHOOK_PATH = `${PUBLIC_ROOTS.billing}/stripe/webhook`;
/** Stripe's webhook names no team before it is verified: the workspace finds the team from the event. */
const NO_TEAM = '00000000-0000-0000-0000-000000000000';
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const PERMISSIONS: Permission[] = ['manage_billing'];
/** A form body is two short fields. */
const FORM_LIMIT_BYTES = 1024;

/** What the portal page shows (the workspace's answer to getBillingPortalPage and actOnBillingPortal). */
type PortalAnswer = Attempt<(typeof WORKSPACE_INTERNAL)['getBillingPortalPage']>;
type PortalPage = Extract<PortalAnswer, { ok: true }>['data'];

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const NOT_FOUND_HTML = messagePage('Not found', 'This billing link is unknown or has expired. Open the billing portal again from the app.');
const UNAVAILABLE_HTML = messagePage('Temporarily unavailable', 'Please try again in a moment.');

/** No script: a static page whose forms post to itself, then go back to the app's `returnUrl`. */
const csp = (returnOrigin: string | null) =>
  `default-src 'none'; style-src 'unsafe-inline'; form-action 'self'${returnOrigin ? ` ${returnOrigin}` : ''}; base-uri 'none'; frame-ancestors 'none'`;

const send = (req: IncomingMessage, res: ServerResponse, status: number, html: string, extra: Record<string, string> = {}, returnOrigin: string | null = null) =>
  sendHtml(req, res, status, html, { csp: csp(returnOrigin), cacheControl: 'no-store', extra });

function renderPage(page: PortalPage, self: string): string {
  const s = page.subscription;
  const period = s.currentPeriodEnd ? ` until ${escapeHtml(s.currentPeriodEnd.slice(0, 10))}` : '';
  const plans = page.plans
    .map((p) => {
      const current = s.status === 'active' && s.plan === p.plan;
      return (
        `<li><span><strong>${escapeHtml(p.name)}</strong> <span class="muted">${escapeHtml(p.pricePerMember)} per member and month</span></span>` +
        (current
          ? '<em>Current plan</em>'
          : `<form method="post" action="${escapeHtml(self)}"><input type="hidden" name="action" value="choose_plan">` +
            `<input type="hidden" name="plan" value="${escapeHtml(p.plan)}"><button type="submit">Choose ${escapeHtml(p.name)}</button></form>`) +
        '</li>'
      );
    })
    .join('\n');
  const cancel =
    s.status === 'canceled'
      ? ''
      : `<form method="post" action="${escapeHtml(self)}"><input type="hidden" name="action" value="cancel"><button type="submit" class="secondary">Cancel subscription</button></form>`;
  return htmlPage(
    'Billing',
    `<h1>Billing</h1>\n<p>Plan <strong>${escapeHtml(s.plan)}</strong>, status <strong>${escapeHtml(s.status)}</strong>${period}; ${s.memberCount} member(s).</p>\n` +
      `<h2>Plans</h2>\n<ul class="plans">\n${plans}\n</ul>\n${cancel}\n<p><a href="${escapeHtml(page.returnUrl)}">Back to the app</a></p>`,
  );
}

/** The request body, or null when it is larger than `limit` bytes. */
async function readBody(req: IncomingMessage, limit: number): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  // Read to the end even past the limit, so that the client gets the answer rather than a reset.
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size <= limit) chunks.push(chunk as Buffer);
  }
  return size > limit ? null : Buffer.concat(chunks);
}

function sendJson(res: ServerResponse, status: number, body: object): void {
  const text = Buffer.from(JSON.stringify(body));
  res.statusCode = status;
  res.setHeader('content-type', 'application/json; charset=utf-8');
  res.setHeader('cache-control', 'no-store');
  res.setHeader('content-length', text.length);
  res.end(text);
}

const originOf = (url: string) => {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
};

/** Serves the local billing portal ahead of the API's listener; every other request goes on to `next`. */
export function withBillingPages(deps: BillingPagesDeps, next: Listener): Listener {
  const claimsOf = (teamId: string): KeyClaims => ({ teamId, mode: 'live', keyId: 'billing_portal', keyType: 'secret', memberId: null, permissions: PERMISSIONS });

  /** The workspace's calls for the portal, made on the portal's account for the team. */
  const workspaceFor = (teamId: string, requestId: string) => deps.services.workspace.forRequest(deps.mint(claimsOf(teamId), requestId), requestId);
  /** A portal page's answer: the page, or the workspace's status and message. */
  const pageOf = (answer: PortalAnswer) =>
    answer.ok ? { status: 200, page: answer.data, error: null } : { status: answer.status, page: null, error: answer.error?.message ?? null };

  async function serve(req: IncomingMessage, res: ServerResponse, path: string, requestId: string): Promise<void> {
    const [teamId, session, ...rest] = path.slice(PREFIX.length + 1).split('/');
    const wellFormed = UUID_RE.test(teamId ?? '') && PORTAL_SESSION_RE.test(session ?? '') && !rest.length;
    if (!wellFormed || !(await deps.teams.getTeam(teamId))) {
      send(req, res, 404, NOT_FOUND_HTML);
      return;
    }
    noteAccess(res, { teamId });
    if (req.method === 'GET' || req.method === 'HEAD') {
      const got = pageOf(await workspaceFor(teamId, requestId).attempt('getBillingPortalPage', { query: { session } }));
      if (got.status === 404) return send(req, res, 404, NOT_FOUND_HTML);
      if (got.status !== 200 || !got.page) throw withFailure(new Error(`workspace answered ${got.status}`), answeredFailure('workspace', got.status));
      return send(req, res, 200, renderPage(got.page, `${PREFIX}/${teamId}/${session}`), {}, originOf(got.page.returnUrl));
    }
    if (req.method !== 'POST') return send(req, res, 405, messagePage('Method not allowed', 'Use the page’s buttons.'), { allow: 'GET, HEAD, POST' });
    const raw = await readBody(req, FORM_LIMIT_BYTES);
    const form = raw && new URLSearchParams(raw.toString('utf8'));
    if (!form) return send(req, res, 413, messagePage('Too large', 'The form was too large.'));
    const plan = form.get('plan');
    const body = { session, action: form.get('action') ?? '', ...(plan ? { plan } : {}) };
    const done = pageOf(await workspaceFor(teamId, requestId).attempt('actOnBillingPortal', { body }));
    if (done.status === 404) return send(req, res, 404, NOT_FOUND_HTML);
    if (done.status === 400) return send(req, res, 400, messagePage('Bad request', escapeHtml(done.error ?? 'The form was not understood.')));
    if (done.status !== 200 || !done.page) throw withFailure(new Error(`workspace answered ${done.status}`), answeredFailure('workspace', done.status));
    // Only ever the returnUrl stored with the session (checked when it was made): no open redirect.
    res.statusCode = 303;
    res.setHeader('location', done.page.returnUrl);
    res.setHeader('cache-control', 'no-store');
    res.setHeader('referrer-policy', 'no-referrer');
    res.end();
  }

  /** Stripe retries anything but 2xx: 400 for a bad signature (it is not Stripe's), 404 without Stripe. */
  async function stripeWebhook(req: IncomingMessage, res: ServerResponse, requestId: string): Promise<void> {
    if (req.method !== 'POST') return sendJson(res, 405, { error: 'method not allowed' });
    const payload = await readBody(req, STRIPE_WEBHOOK_MAX_BYTES);
    if (!payload) return sendJson(res, 413, { error: 'payload too large' });
    const signature = String(req.headers['stripe-signature'] ?? '');
    const got = await workspaceFor(NO_TEAM, requestId).attempt('receiveStripeWebhook', { body: { payload: payload.toString('utf8'), signature } });
    if (got.ok) return sendJson(res, 200, { received: true });
    if (got.status === 400 || got.status === 404) return sendJson(res, got.status, { error: got.error?.message ?? 'refused' });
    throw withFailure(new Error(`workspace answered ${got.status}`), answeredFailure('workspace', got.status));
  }

  return (req, res) => {
    const raw = req.url ?? '/';
    const q = raw.indexOf('?');
    const path = q === -1 ? raw : raw.slice(0, q);
    const isWebhook = path === STRIPE_WEBHOOK_PATH;
    if (!isWebhook && path !== PREFIX && !path.startsWith(`${PREFIX}/`)) {
      next(req, res);
      return;
    }
    const requestId = newId('request');
    res.setHeader('x-svc-request-id', requestId);
    (isWebhook ? stripeWebhook(req, res, requestId) : serve(req, res, path, requestId)).catch((err: unknown) => {
      deps.logger.warn({ err, requestId }, 'billing portal page failed');
      noteAccess(res, { failure: failureOf(err) ?? { what: 'billing portal page failed', error: describeError(err) } });
      if (res.headersSent) res.destroy();
      else send(req, res, 503, UNAVAILABLE_HTML, { 'retry-after': '5' });
    });
  };
}
