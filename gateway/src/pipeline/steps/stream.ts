import { pipeline } from 'node:stream/promises';
import { ApiError, sseStreamsOpen } from '@helpdesk/kit';
import { answeredFailure, noteAccess } from '../../access-log';
import { upstreamStreamQuery } from '../../stream-tokens/stream-tokens';
import { DONE, type Exchange, type GatewayContext } from '../exchange';
import { releaseIdempotency, releasesKey, releasingOnThrow } from './idempotency';

/**
 * How often an open stream's key is checked again: a revoked (or expired) key's streams end within
 * this plus the key cache's lifetime (at once when the revocation went through this gateway, which
 * drops its cache).
 */
export const STREAM_KEY_CHECK_MS = 2_000;

const permissionsKey = (permissions: readonly string[]) => [...permissions].sort().join(',');

/**
 * The streaming half of dispatch (operations with `stream: true`, docs/adr/0021): the service's
 * answer is piped to the client as it comes, never buffered and with no body timeout. The request
 * went through the rate limit once, like any other. An error answer (400, 403 …) is relayed whole.
 */
export async function dispatchStream(x: Exchange, g: GatewayContext): Promise<typeof DONE> {
  const { req, res } = x;
  const abort = new AbortController();
  const lastEventId = req.headers['last-event-id'];
  const request = {
    service: x.route!.op.service,
    // A download (POST /export) takes its body along; an event stream is a GET.
    method: x.method,
    body: x.body,
    contentType: x.req.headers['content-type'],
    pathAndQuery: x.subPath + upstreamStreamQuery(x),
    token: g.mint(x.auth!.claims, x.requestId),
    requestId: x.requestId,
    lastEventId: typeof lastEventId === 'string' ? lastEventId : undefined,
  };
  // A streamed answer is never kept for an Idempotency-Key (docs/adr/0036): its claim lapses with the
  // lease, but one that did not run (unreachable, 429, 503) is released at once so a retry runs.
  const answer = await releasingOnThrow(x, g, () => g.upstreams.openStream(request, abort.signal));
  if (releasesKey(answer.status)) await releaseIdempotency(x, g);
  res.statusCode = answer.status;
  if (answer.status >= 500) noteAccess(res, { failure: answeredFailure(request.service, answer.status) });
  if (answer.contentType) res.setHeader('content-type', answer.contentType);
  for (const [name, value] of Object.entries(answer.headers)) res.setHeader(name, value);
  if (answer.status === 200) {
    res.setHeader('cache-control', 'no-cache, no-transform');
    res.setHeader('x-accel-buffering', 'no');
    res.flushHeaders();
  }
  // The open-streams gauge counts event streams (not downloads), from their first byte to their end.
  const counted = answer.status === 200 && (answer.contentType ?? '').startsWith('text/event-stream');
  if (counted) sseStreamsOpen.inc();
  const authorization = req.headers.authorization;
  const token = x.streamToken;
  const cookie = x.session?.token;
  const opened = permissionsKey(x.auth!.permissions);
  const keyCheck = setInterval(() => {
    // A stream opened with a stream token is checked through its issuing key (it outlives the token
    // itself); one opened with the console's cookie through its session (docs/adr/0068).
    (token ? g.streamTokens.issuer(token) : cookie !== undefined && g.sessions ? g.sessions.resolver.authenticate(cookie) : g.resolver.authenticate(authorization)).then(
      // Its member's role changed: end it, so that the client reconnects and reads with what the key may read now (docs/adr/0066).
      (now) => {
        if (permissionsKey(now.permissions) !== opened) abort.abort();
      },
      (err) => {
        // Revoked or expired: end the stream (a store outage is not a revocation: keep it open).
        if (err instanceof ApiError && err.status === 401) abort.abort();
      },
    );
  }, STREAM_KEY_CHECK_MS);
  keyCheck.unref();
  g.openStreams.add(abort);
  try {
    await pipeline(answer.body, res, { signal: abort.signal });
  } catch {
    // The client left, the service ended, or the key was revoked: either way both sides are closed now.
    res.destroy();
  } finally {
    g.openStreams.delete(abort);
    clearInterval(keyCheck);
    answer.body.destroy();
    if (counted) sseStreamsOpen.dec();
  }
  return DONE;
}
