import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError, isProbePath, newId, requestDuration, requestsTotal } from '@helpdesk/kit';
import { DONE, sendError, type Exchange, type GatewayContext, type Step } from './exchange';
import { access } from './steps/access';
import { authenticate } from './steps/authenticate';
import { body } from './steps/body';
import { allowBrowser, corsForRefusedKey, preflight } from './steps/cors';
import { dispatch } from './steps/dispatch';
import { idempotency } from './steps/idempotency';
import { ids } from './steps/ids';
import { rateLimit } from './steps/rate-limit';
import { route } from './steps/route';
import { team } from './steps/team';
import { unauthenticated } from './steps/unauthenticated';
import { sessionWrites } from '../sessions/steps';
import { widget } from '../widget';
import { describeError, failureOf, noteAccess } from '../access-log';

/**
 * The gateway's request pipeline, in ADR 0001's check order: one step per rule. A step reads and
 * fills the exchange, throws an ApiError to refuse, or answers and returns DONE. Adding a rule is
 * adding a step here.
 */
export const STEPS: readonly (readonly [name: string, step: Step])[] = [
  ['widget', widget], // the chat widget: its script, its origins and visitors (gateway/src/widget.ts)
  ['preflight', preflight], // CORS preflights, before any key
  ['unauthenticated', unauthenticated], // health, /docs, the OpenAPI document; 404 outside /api/v1
  ['authenticate', authenticate], // 401s
  ['sessionWrites', sessionWrites], // the session cookie's writes: 403 origin_not_allowed, csrf_token_invalid (docs/adr/0068)
  ['allowBrowser', allowBrowser], // CORS headers for publishable keys
  ['rateLimit', rateLimit], // 429, rate headers
  ['route', route], // 404, 405
  ['team', team], // 400 team id, 403 team_access_denied
  ['access', access], // publishable keys, permission
  ['ids', ids], // 400 invalid_id_format
  ['body', body], // 400 invalid_json, 413
  ['idempotency', idempotency], // replay, 409
  ['dispatch', dispatch], // the gateway's own answer, or the service's
];

async function run(x: Exchange, g: GatewayContext): Promise<void> {
  for (const [, step] of STEPS) {
    const out = step(x, g);
    if ((out instanceof Promise ? await out : out) === DONE) return;
  }
}

/** The node:http listener: a request id for every request, the steps, and the error body for any refusal. */
export function createListener(g: GatewayContext) {
  const debug = g.logger.isLevelEnabled('debug');
  return (req: IncomingMessage, res: ServerResponse): void => {
    const requestId = newId('request');
    const started = process.hrtime.bigint();
    res.setHeader('x-svc-request-id', requestId);
    const x: Exchange = {
      req,
      res,
      requestId,
      method: req.method ?? 'GET',
      subPath: '/',
      query: '',
      origin: null,
      match: null,
      auth: null,
      route: null,
      body: null,
      idempotency: null,
    };
    // The access line (gateway/src/access-log.ts): what the steps found, read when the answer is done.
    noteAccess(res, {
      late: () => ({
        operation: x.route?.id ?? x.match?.route?.id ?? null,
        teamId: x.auth?.team.id ?? null,
        keyId: x.auth?.key.id ?? null,
        keyPrefix: x.auth?.key.prefix ?? null,
      }),
    });
    // Counted once answered, by operation id (`probe`: /healthz, /readyz; `unmatched`: no operation of the manifest) and status.
    res.once('close', () => {
      const labels = { operation: x.route?.id ?? x.match?.route?.id ?? (isProbePath(req.url) ? 'probe' : 'unmatched'), status: String(res.statusCode) };
      requestsTotal.inc(labels);
      requestDuration.observe(labels, Number(process.hrtime.bigint() - started) / 1e9);
    });
    // Each request's line is the access log's (gateway/src/access-log.ts): never its URL, which can carry a stream token.
    run(x, g).then(
      () => undefined,
      (err) => {
        if (!(err instanceof ApiError)) {
          g.logger.error({ err, requestId }, 'unhandled gateway error');
          noteAccess(res, { failure: { what: 'unhandled gateway error', error: describeError(err) } });
          err = new ApiError('internal_error', 'An internal error occurred. Please retry the request.');
        } else {
          if (debug) g.logger.debug({ requestId, code: err.code }, 'request refused');
          const failure = failureOf(err);
          if (failure) noteAccess(res, { failure });
          else if (err.status >= 500) noteAccess(res, { failure: { what: err.message } });
        }
        noteAccess(res, { code: (err as ApiError).code });
        if (err.status === 401) corsForRefusedKey(x);
        sendError(res, err, requestId);
      },
    );
  };
}
