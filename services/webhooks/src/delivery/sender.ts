import { performance } from 'node:perf_hooks';
import { Agent, buildConnector, request, type Dispatcher } from 'undici';
import { parseRetryAfter } from './schedule';
import { addressVerdict, BlockedAddressError, guardedLookup, isIpLiteral, urlProblem, type AddressPolicy } from './safety';

export const USER_AGENT = 'Helpdesk-Webhooks/1.0';

/** The outcome of one HTTP attempt, as the delivery log records it. */
export interface AttemptOutcome {
  ok: boolean;
  /** The receiver's status, or null when it never answered (refused, blocked, timed out). */
  statusCode: number | null;
  durationMs: number;
  /** Null on success; otherwise what went wrong, in a sentence. */
  error: string | null;
  retryAfterMs: number | null;
}

export interface SenderOptions {
  allowLoopback: boolean;
  timeoutMs: number;
}

/**
 * Sends one POST. First the URL rule the webhook was written under (`urlProblem`, the same function
 * the create and update apply), so a webhook kept from a run with other settings fails with the same
 * sentence it would be refused with today. Safety at connect time: the agents resolve names through
 * `guardedLookup` (refused addresses are never connected to), an IP-literal host is checked before
 * connecting, and the connected socket's peer address is checked once more before a byte of the
 * request is written.
 * Plain HTTP has its own agent that reaches loopback only (and exists only with allowLoopback).
 * Redirects are never followed (undici's `request` does not follow them; a 3xx is a failed attempt).
 */
export class Sender {
  private readonly https: Agent;
  private readonly http: Agent | null;

  constructor(private readonly opts: SenderOptions) {
    const policy: AddressPolicy = { allowLoopback: opts.allowLoopback };
    this.https = this.agent(policy);
    this.http = opts.allowLoopback ? this.agent({ allowLoopback: true, loopbackOnly: true }) : null;
  }

  private agent(policy: AddressPolicy): Agent {
    const connect = buildConnector({ lookup: guardedLookup(policy), timeout: this.opts.timeoutMs });
    return new Agent({
      keepAliveTimeout: 4_000,
      connect: (options, callback) =>
        connect(options, (err, socket) => {
          if (err || !socket) return callback(err ?? new Error('no socket'), null);
          const peer = socket.remoteAddress ?? '';
          const verdict = addressVerdict(peer, policy);
          if (!verdict.allowed) {
            socket.destroy();
            return callback(new BlockedAddressError(options.hostname, peer, verdict.range), null);
          }
          callback(null, socket);
        }),
    });
  }

  async send(target: string, headers: Record<string, string>, body: string): Promise<AttemptOutcome> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const fail = (error: string, statusCode: number | null = null, retryAfterMs: number | null = null): AttemptOutcome =>
      ({ ok: false, statusCode, durationMs: elapsed(), error, retryAfterMs });
    let url: URL;
    try {
      url = new URL(target);
    } catch {
      return fail('invalid URL');
    }
    // The rule the webhook was written under, applied again: the deployment's setting may have changed since.
    const problem = urlProblem(target, { allowLoopback: this.opts.allowLoopback });
    if (problem) return fail(`url refused: ${problem}`);
    const dispatcher: Dispatcher | null = url.protocol === 'https:' ? this.https : url.protocol === 'http:' ? this.http : null;
    if (!dispatcher) return fail('url refused: must use https://');
    const policy: AddressPolicy = { allowLoopback: this.opts.allowLoopback, loopbackOnly: url.protocol === 'http:' };
    if (isIpLiteral(url.hostname)) {
      const verdict = addressVerdict(url.hostname, policy);
      if (!verdict.allowed) return fail(new BlockedAddressError(url.hostname, url.hostname, verdict.range).message);
    }
    try {
      const res = await request(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': USER_AGENT, ...headers },
        body,
        dispatcher,
        headersTimeout: this.opts.timeoutMs,
        bodyTimeout: this.opts.timeoutMs,
        signal: AbortSignal.timeout(this.opts.timeoutMs),
      });
      // The answer's body is not kept: read a little (so the connection can be reused) and drop it.
      await res.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
      const status = res.statusCode;
      if (status >= 200 && status < 300) return { ok: true, statusCode: status, durationMs: elapsed(), error: null, retryAfterMs: null };
      if (status >= 300 && status < 400) {
        const location = res.headers.location;
        return fail(`redirect not followed (${status}${location ? ` to ${String(location).slice(0, 200)}` : ''})`, status);
      }
      return fail(`receiver answered ${status}`, status, parseRetryAfter(res.headers['retry-after'], new Date()));
    } catch (err) {
      return fail(describeError(err, this.opts.timeoutMs));
    }
  }

  async close(): Promise<void> {
    await Promise.all([this.https.close(), this.http?.close()]);
  }
}

const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

/** A network failure in one sentence: blocked address, timeout, or the system error's code and message. */
export function describeError(err: unknown, timeoutMs: number): string {
  for (let e = err as (Error & { code?: string; cause?: unknown }) | undefined, depth = 0; e && depth < 5; e = e.cause as typeof e, depth++) {
    if (e instanceof BlockedAddressError || e.code === 'ERR_WEBHOOK_ADDRESS_BLOCKED') return e.message;
    if (e.name === 'TimeoutError' || (e.code && TIMEOUT_CODES.has(e.code))) return `timeout: no complete answer within ${timeoutMs} ms`;
  }
  const e = err as Error & { code?: string };
  const msg = e?.message || String(err);
  return e?.code && !msg.includes(e.code) ? `${e.code}: ${msg}` : msg;
}
