import type { ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
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

/** An open stream whose credential is checked again: the permissions it opened with, and how to end it. */
interface Watched {
  opened: string;
  abort: { abort(): void };
}

/**
 * The open streams' credential checks (docs/adr/0073): one timer for all of a gateway's streams,
 * running only while one is open, and one look-up per credential and tick whatever number of
 * streams it holds open (a console tab, a fleet of listeners on one key). Each stream is still
 * checked every STREAM_KEY_CHECK_MS, against the permissions it opened with.
 */
class KeyChecks {
  private readonly byCredential = new Map<string, { check: () => Promise<{ permissions: readonly string[] }>; streams: Set<Watched> }>();
  private timer: NodeJS.Timeout | null = null;

  add(credential: string, check: () => Promise<{ permissions: readonly string[] }>, stream: Watched): void {
    let group = this.byCredential.get(credential);
    if (!group) this.byCredential.set(credential, (group = { check, streams: new Set() }));
    group.streams.add(stream);
    if (!this.timer) {
      this.timer = setInterval(() => this.tick(), STREAM_KEY_CHECK_MS);
      this.timer.unref();
    }
  }

  remove(credential: string, stream: Watched): void {
    const group = this.byCredential.get(credential);
    if (!group) return;
    group.streams.delete(stream);
    if (group.streams.size === 0) this.byCredential.delete(credential);
    if (this.byCredential.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = null;
    }
  }

  private tick(): void {
    for (const { check, streams } of this.byCredential.values()) {
      check().then(
        // Its member's role changed: end it, so that the client reconnects and reads with what the key may read now (docs/adr/0066).
        (now) => {
          const current = permissionsKey(now.permissions);
          for (const s of [...streams]) if (s.opened !== current) s.abort.abort();
        },
        (err) => {
          // Revoked or expired: end its streams (a store outage is not a revocation: keep them open).
          if (err instanceof ApiError && err.status === 401) for (const s of [...streams]) s.abort.abort();
        },
      );
    }
  }
}

/** Each gateway's checks (a process may run more than one gateway: tests). */
const keyChecks = new WeakMap<GatewayContext, KeyChecks>();

/**
 * The streaming half of dispatch (operations with `stream: true`, docs/adr/0021): the service's
 * answer is piped to the client as it comes, never buffered and with no body timeout. The request
 * went through the rate limit once, like any other. An error answer (400, 403 …) is relayed whole.
 */
/**
 * Relays the service's answer to the client as it comes, pausing it while the client's socket is
 * full (a download's backpressure; an event stream's slow client is bounded where its backlog is,
 * docs/adr/0021 and 0073), and resolves once both sides are closed: the answer ended (the client's
 * ends cleanly once written), or either side failed or left, or `stopper.abort()` (the key was
 * revoked, the gateway stops): then both are destroyed. A few listeners, not a pipeline: a held
 * stream keeps what it allocates for hours (docs/adr/0073).
 */
function relay(body: Readable, res: ServerResponse, stopper: { abort(): void }): Promise<void> {
  return new Promise((resolve) => {
    let settled = false;
    const done = (clean: boolean) => {
      if (settled) return;
      settled = true;
      stopper.abort = () => {};
      if (!clean) res.destroy();
      body.destroy();
      resolve();
    };
    const failed = () => done(false);
    stopper.abort = failed;
    body.on('data', (chunk: Buffer) => {
      if (!res.write(chunk)) body.pause();
    });
    res.on('drain', () => body.resume());
    body.on('end', () => res.end(() => done(true)));
    body.on('error', failed);
    // Destroyed without an error (an in-process answer the service dropped) is not an end.
    body.on('close', () => {
      if (!body.readableEnded) failed();
    });
    res.on('error', failed);
    res.on('close', () => done(res.writableFinished));
  });
}

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
  // Until it answers, a stop aborts the opening; from then on, the relay (below).
  g.openStreams.add(abort);
  let answer;
  try {
    answer = await releasingOnThrow(x, g, () => g.upstreams.openStream(request, abort.signal));
  } finally {
    g.openStreams.delete(abort);
  }
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
  // A stream opened with a stream token is checked through its issuing key (it outlives the token
  // itself); one opened with the console's cookie through its session (docs/adr/0068).
  const authorization = req.headers.authorization;
  const token = x.streamToken;
  const cookie = x.session?.token;
  const sessions = cookie !== undefined ? g.sessions : undefined;
  const credential = token ? `token ${token}` : sessions ? `session ${cookie}` : `key ${authorization}`;
  const check = token ? () => g.streamTokens.issuer(token) : sessions ? () => sessions.resolver.authenticate(cookie!) : () => g.resolver.authenticate(authorization);
  // Ends the relay: the key was revoked or its permissions changed, or the gateway is stopping.
  const stopper = { abort: () => {} };
  const watched: Watched = { opened: permissionsKey(x.auth!.permissions), abort: stopper };
  let checks = keyChecks.get(g);
  if (!checks) keyChecks.set(g, (checks = new KeyChecks()));
  checks.add(credential, check, watched);
  g.openStreams.add(stopper);
  try {
    await relay(answer.body, res, stopper);
  } finally {
    g.openStreams.delete(stopper);
    checks.remove(credential, watched);
    if (counted) sseStreamsOpen.dec();
  }
  return DONE;
}
