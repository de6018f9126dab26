import { ApiError, rateLimitDecisions } from '@helpdesk/kit';
import type { Step } from '../exchange';

const WINDOW_MS = 60_000;
const WINDOW_HEADER = '60';

/**
 * Step: every authenticated request counts, whatever it answers, before the route is looked up (so
 * probing unknown routes is limited too); every later answer carries the headers.
 */
export const rateLimit: Step = async (x, g) => {
  const auth = x.auth!;
  let hit;
  try {
    hit = await g.rateLimits.hit(`rl:${auth.key.id}`, WINDOW_MS);
  } catch (err) {
    throw g.storeDown(err, x.requestId);
  }
  const remaining = auth.limit - hit.count;
  x.res.setHeader('X-RateLimit-Limit', auth.limitHeader);
  x.res.setHeader('X-RateLimit-Remaining', remaining > 0 ? remaining : 0);
  x.res.setHeader('X-RateLimit-Reset', Math.ceil(hit.resetAtMs / 1000));
  x.res.setHeader('X-RateLimit-Window', WINDOW_HEADER);
  rateLimitDecisions.inc({ outcome: remaining < 0 ? 'limited' : 'allowed' });
  if (remaining < 0) {
    const retryAfter = Math.max(1, Math.ceil((hit.resetAtMs - Date.now()) / 1000));
    throw new ApiError('rate_limit_exceeded', `Rate limit of ${auth.limit} requests per minute exceeded. Retry after ${retryAfter} s.`, undefined, {
      headers: { 'Retry-After': String(retryAfter) },
      extra: { retryAfter },
    });
  }
};
