import { ApiError } from '@helpdesk/kit';
import { BASE_PATH, DONE, sendEnvelope, sendJson, type Step } from '../exchange';

/**
 * Step: what answers without a key. Outside `/api/v1`: the health routes and the HTML API reference
 * (`/docs`); anything else there is 404. Inside: operations the manifest marks `keys: none` (the
 * OpenAPI document). Everything else goes on to authentication.
 */
export const unauthenticated: Step = (x, g) => {
  const url = x.req.url ?? '/';
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  if (!path.startsWith(BASE_PATH) || (path.length > BASE_PATH.length && path.charCodeAt(BASE_PATH.length) !== 47)) {
    if (path === '/healthz' || path === '/readyz') {
      sendEnvelope(x.res, x.requestId, { status: 'ok', service: 'gateway' });
      return DONE;
    }
    if (path === '/docs' || path.startsWith('/docs/')) {
      g.docs(x.req, x.res);
      return DONE;
    }
    throw new ApiError('route_not_found', `Unrecognized request URL (${x.method} ${path}).`);
  }
  x.subPath = path.slice(BASE_PATH.length) || '/';
  x.query = q === -1 ? '' : url.slice(q);
  x.match = g.table.match(x.method, x.subPath);
  if (x.match?.route?.op.keys === 'none') {
    // The one operation without a key is the OpenAPI document; tools fetch it from any origin.
    if (x.origin) x.res.setHeader('Access-Control-Allow-Origin', '*');
    sendJson(x.res, 200, g.openApiJson());
    return DONE;
  }
};
