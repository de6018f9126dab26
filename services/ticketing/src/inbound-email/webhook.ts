import http from 'node:http';
import { ApiError, errorBody, newId, slowClientServerOptions, SLOW_CLIENT_LIMITS, watchBodyRate, type Logger, type SlowClientLimits } from '@helpdesk/kit';
import { MalformedMail, parseInboundMail } from './parse';
import type { InboundEmailConfig } from './config';
import { MailLimited } from './ingest';
import type { MailIntake } from './intake';

const PATH_RE = /^\/inbound-email\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\/messages\/?$/i;
/** Raw MIME as providers post it (SendGrid's and Mailgun's raw forms are sent by a forwarder as this). */
const RAW_TYPES = new Set(['message/rfc822', 'application/octet-stream', 'text/plain']);

/** `Authorization: Bearer <secret>`, or Basic with the secret as the password (a provider's `https://inbound:<secret>@host/…` URL). */
function presentedSecret(header: string | undefined): string | null {
  if (!header) return null;
  const [scheme, value = ''] = header.trim().split(/\s+/, 2);
  if (/^bearer$/i.test(scheme)) return value;
  if (/^basic$/i.test(scheme)) {
    const decoded = Buffer.from(value, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    return colon === -1 ? decoded : decoded.slice(colon + 1);
  }
  return null;
}

/**
 * The body up to `limit` bytes; null when larger (the rest is drained, not kept). A body slower than
 * `slow` allows ends the connection (kit's watchBodyRate).
 */
function readBody(req: http.IncomingMessage, limit: number, slow: SlowClientLimits): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    watchBodyRate(req, slow, () => reject(new ApiError('parameter_invalid', 'The request body arrived too slowly.', 'body', { status: 408 })));
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= limit) chunks.push(c);
    });
    req.on('end', () => resolve(size > limit ? null : Buffer.concat(chunks, size)));
    req.on('error', reject);
  });
}

/**
 * The inbound webhook listener (docs/adr/0041): `POST /inbound-email/{teamId}/messages` with the raw
 * MIME message as the body, authenticated by the partition's webhook secret (the secret names the
 * partition). Answers the API's envelope: 201 a ticket was opened, 200 continued / duplicate /
 * ignored (so a provider does not retry an auto-reply), 401 no or a wrong secret (another team's
 * included), 413 larger than `maxBytes`, 400 not a MIME message; nothing is written on a refusal.
 */
export function webhookListener(rules: Pick<MailIntake, 'ingest' | 'verifySecret'>, config: InboundEmailConfig, logger: Logger): http.Server {
  const send = (res: http.ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
    res.end(JSON.stringify(body));
  };
  const slow = config.slowClients ?? SLOW_CLIENT_LIMITS;
  // Headers within `headersMs` (checked every second, not Node's default 30 s), then the body's own rate (readBody).
  const server = http.createServer(slowClientServerOptions(slow), (req, res) => {
    const requestId = newId('request');
    res.setHeader('x-svc-request-id', requestId);
    (async () => {
      const path = (req.url ?? '/').split('?')[0];
      const m = PATH_RE.exec(path);
      if (!m) throw new ApiError('route_not_found', `Unrecognized request URL (${req.method} ${path}).`);
      if (req.method !== 'POST') throw new ApiError('method_not_allowed', `${req.method} is not allowed here.`, undefined, { headers: { Allow: 'POST' } });
      const secret = presentedSecret(req.headers.authorization);
      if (!secret) throw new ApiError('authentication_required', 'Send the inbound email secret: Authorization: Bearer <secret>, or Basic with it as the password.');
      const scope = await rules.verifySecret(m[1].toLowerCase(), secret);
      if (!scope) throw new ApiError('invalid_api_key', 'The inbound email secret is not valid for this team.');
      const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
      if (!RAW_TYPES.has(type)) {
        throw new ApiError('parameter_invalid', 'Send the raw MIME message as the body, with Content-Type: message/rfc822.', 'body', { status: 415 });
      }
      const raw = await readBody(req, config.maxBytes, slow);
      if (raw === null) throw new ApiError('parameter_invalid', `The message is larger than ${config.maxBytes} bytes.`, 'body', { status: 413 });
      let mail;
      try {
        mail = await parseInboundMail(raw);
      } catch (err) {
        if (err instanceof MalformedMail) throw new ApiError('parameter_invalid', `Malformed MIME: ${err.message}`, 'body');
        throw err;
      }
      let outcome;
      try {
        outcome = await rules.ingest({ ...scope, ticketId: null }, mail);
      } catch (err) {
        if (err instanceof MailLimited) {
          throw new ApiError('rate_limit_exceeded', err.message, undefined, { headers: { 'Retry-After': String(err.refusal.retryAfterS) } });
        }
        throw err;
      }
      send(res, outcome.outcome === 'created' ? 201 : 200, {
        success: true,
        data: { object: 'inbound_email_delivery', ...outcome },
        meta: { requestId, timestamp: new Date().toISOString() },
      });
    })().catch((err: unknown) => {
      const known = err instanceof ApiError ? err : null;
      if (!known) logger.error({ err, requestId }, 'inbound webhook failed');
      const apiErr = known ?? new ApiError('internal_error', 'The mail could not be stored; retry later.');
      for (const [k, v] of Object.entries(apiErr.headers ?? {})) res.setHeader(k, v);
      // The body may not have been read (a refusal before it): drain it so the client sees the answer.
      req.resume();
      if (!res.destroyed) send(res, apiErr.status, errorBody(apiErr, requestId));
    });
  });
  // An idle kept-alive connection goes too.
  server.keepAliveTimeout = 5_000;
  return server;
}
