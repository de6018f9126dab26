import { ApiError, failingChecks } from '@helpdesk/kit';
import { BASE_PATH, DONE, sendEnvelope, sendJson, type Exchange, type GatewayContext, type Step } from '../exchange';
import { body } from './body';
import { isUnder, PUBLIC_ROOTS } from '../../public-roots';
import { withFailure } from '../../access-log';
import { ERROR_DOCS_PATH, renderErrorReferenceHtml } from '@helpdesk/contracts';
import { sendHtml } from '../../html-page';
import { PAGE_STYLESHEET } from '../../page-style';

/** The error reference every `doc_url` points into (`/docs/errors#<code>`), rendered once from the error catalog. */
let errorReferenceHtml: string | undefined;
const errorReferencePage = () => (errorReferenceHtml ??= renderErrorReferenceHtml({ stylesheet: PAGE_STYLESHEET }));
/** A static page: no script, its own inline style. */
const PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/**
 * Step: what answers without a key. Outside `/api/v1`: the health routes, the error reference
 * (`/docs/errors`) and the HTML API reference (`/docs`); anything else there is 404. Inside: operations the manifest marks `keys: none` (the
 * OpenAPI document). Everything else goes on to authentication.
 */
export const unauthenticated: Step = (x, g) => {
  const url = x.req.url ?? '/';
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  if (!path.startsWith(BASE_PATH) || (path.length > BASE_PATH.length && path.charCodeAt(BASE_PATH.length) !== 47)) {
    if (path === '/healthz') {
      sendEnvelope(x.res, x.requestId, { status: 'ok', service: 'gateway' });
      return DONE;
    }
    if (path === '/readyz') return readiness(x, g);
    if (path === ERROR_DOCS_PATH || path === `${ERROR_DOCS_PATH}/`) {
      sendHtml(x.req, x.res, 200, errorReferencePage(), { csp: PAGE_CSP, cacheControl: 'public, max-age=3600' });
      return DONE;
    }
    if (isUnder(path, PUBLIC_ROOTS.docs)) {
      g.docs(x.req, x.res);
      return DONE;
    }
    throw new ApiError('route_not_found', `Unrecognized request URL (${x.method} ${path}).`);
  }
  x.subPath = path.slice(BASE_PATH.length) || '/';
  x.query = q === -1 ? '' : url.slice(q);
  x.match = g.table.match(x.method, x.subPath);
  if (x.match?.route?.id === 'acceptInvite' && g.apiKeys) return acceptInvite(x, g);
  const signIn = x.match?.route ? g.sessions?.keyless(x.match.route.id) : undefined;
  if (signIn) return keyless(x, g, signIn);
  if (x.match?.route?.op.keys === 'none') {
    // The other operation without a key is the OpenAPI document; tools fetch it from any origin.
    if (x.origin) x.res.setHeader('Access-Control-Allow-Origin', '*');
    sendJson(x.res, 200, g.openApiJson());
    return DONE;
  }
};

/**
 * Readiness: what the gateway cannot serve without (its database, Redis). A service behind it that is
 * down is not (its routes answer 503): each one's state is reported in `upstreams`, never failing this.
 */
async function readiness(x: Exchange, g: GatewayContext): Promise<typeof DONE> {
  const [failing, upstreams] = await Promise.all([failingChecks(g.readiness ?? {}), g.upstreamStates?.() ?? {}]);
  if (failing.length) {
    const refusal = new ApiError('service_unavailable', `Not ready: ${failing.join(', ')} unavailable.`, undefined, { extra: { failing, upstreams } });
    throw withFailure(refusal, { upstream: failing.join(','), what: 'not ready' });
  }
  sendEnvelope(x.res, x.requestId, { status: 'ok', service: 'gateway', upstreams });
  return DONE;
}

/** Sign-in (gateway/src/sessions): a link by mail, or a link's token for a session; no credential. */
async function keyless(x: Exchange, g: GatewayContext, op: (x: Exchange, g: GatewayContext) => Promise<{ status: number; data: unknown }>): Promise<typeof DONE> {
  await body(x, g);
  const own = await op(x, g);
  sendEnvelope(x.res, x.requestId, own.data, own.status);
  return DONE;
}

/** Accepting an invitation: the token in the body stands in for a key (gateway/src/api-keys). */
async function acceptInvite(x: Exchange, g: GatewayContext): Promise<typeof DONE> {
  await body(x, g);
  const own = await g.apiKeys!.acceptInvite(x);
  sendEnvelope(x.res, x.requestId, own.data, own.status);
  return DONE;
}
