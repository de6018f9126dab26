import { ApiError, rateLimitDecisions } from '@helpdesk/kit';
import type { Exchange, GatewayContext, Step } from '../exchange';

/** The rate limits' window (the API's per key, the help center's per address). */
export const WINDOW_MS = 60_000;
const WINDOW_HEADER = '60';

/** One more request under `key` in its current 60-second window; the store being down is a 503. */
export async function hitWindow(x: Exchange, g: GatewayContext, key: string): Promise<{ count: number; resetAtMs: number }> {
  try {
    return await g.rateLimits.hit(key, WINDOW_MS);
  } catch (err) {
    throw g.storeDown(err, x.requestId);
  }
}

/** Whole seconds until the window resets (at least 1): `Retry-After`. */
export const retryAfterSeconds = (resetAtMs: number) => Math.max(1, Math.ceil((resetAtMs - Date.now()) / 1000));

/** The 429: `why` (a sentence), then when to retry, in the message, `Retry-After` and the body. */
export function limitExceeded(why: string, resetAtMs: number): ApiError {
  const retryAfter = retryAfterSeconds(resetAtMs);
  return new ApiError('rate_limit_exceeded', `${why} Retry after ${retryAfter} s.`, undefined, {
    headers: { 'Retry-After': String(retryAfter) },
    extra: { retryAfter },
  });
}

/**
 * Step: every authenticated request counts, whatever it answers, before the route is looked up (so
 * probing unknown routes is limited too); every later answer carries the headers.
 */
export const rateLimit: Step = async (x, g) => {
  const auth = x.auth!;
  const hit = await hitWindow(x, g, `rl:${auth.key.id}`);
  const remaining = auth.limit - hit.count;
  x.res.setHeader('X-RateLimit-Limit', auth.limitHeader);
  x.res.setHeader('X-RateLimit-Remaining', remaining > 0 ? remaining : 0);
  x.res.setHeader('X-RateLimit-Reset', Math.ceil(hit.resetAtMs / 1000));
  x.res.setHeader('X-RateLimit-Window', WINDOW_HEADER);
  rateLimitDecisions.inc({ outcome: remaining < 0 ? 'limited' : 'allowed' });
  if (remaining < 0) throw limitExceeded(`Rate limit of ${auth.limit} requests per minute exceeded.`, hit.resetAtMs);
};
