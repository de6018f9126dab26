import { createHash } from 'node:crypto';
import { ApiError, idempotencyOutcomes } from '@helpdesk/kit';
import { DONE, type Exchange, type GatewayContext, type Step } from '../exchange';
import type { ProxyAnswer } from '../../proxy';

const IDEMPOTENCY_MAX = 255;

/**
 * Step: `Idempotency-Key` on POST and PATCH. The first use claims the key (a 60-second lease); the
 * same request again replays the stored answer byte for byte; another request with the key, or one
 * while the first still runs, is 409 `idempotency_key_in_use`.
 */
export const idempotency: Step = async (x, g) => {
  if (x.method !== 'POST' && x.method !== 'PATCH') return;
  const header = x.req.headers['idempotency-key'];
  if (header === undefined) return;
  const value = Array.isArray(header) ? header.join(',') : header;
  if (value.length < 1 || value.length > IDEMPOTENCY_MAX) {
    throw new ApiError('parameter_invalid', `Idempotency-Key must be 1 to ${IDEMPOTENCY_MAX} characters.`, 'Idempotency-Key');
  }
  const key = `idem:${x.auth!.team.id}:${x.auth!.key.mode}:${value}`;
  const h = createHash('sha256').update(x.method).update('\n').update(x.subPath + x.query).update('\n');
  if (x.body) h.update(x.body);
  const fingerprint = h.digest('hex');
  let found;
  try {
    found = await g.idempotency.begin(key, fingerprint, g.idempotencyLockMs);
  } catch (err) {
    throw g.storeDown(err, x.requestId);
  }
  if (!found) {
    idempotencyOutcomes.inc({ outcome: 'claimed' });
    x.idempotency = { key, fingerprint };
    return;
  }
  idempotencyOutcomes.inc({ outcome: found.fingerprint !== fingerprint ? 'conflict' : found.state === 'in_progress' ? 'in_progress' : 'replayed' });
  if (found.fingerprint !== fingerprint) {
    throw new ApiError('idempotency_key_in_use', 'This Idempotency-Key was already used with a different method, endpoint or body.', 'Idempotency-Key');
  }
  if (found.state === 'in_progress') {
    throw new ApiError('idempotency_key_in_use', 'A request with this Idempotency-Key is still being processed. Retry later.', 'Idempotency-Key');
  }
  const replay = Buffer.from(found.body, 'base64');
  x.res.statusCode = found.status;
  if (found.contentType) x.res.setHeader('content-type', found.contentType);
  x.res.setHeader('content-length', replay.length);
  x.res.setHeader('Idempotent-Replayed', 'true');
  x.res.end(replay);
  return DONE;
};

/**
 * Answers that say "not done, retry": 503 (the service, or one it needed, was unavailable) and 429
 * (the service refused for load). A service answers these only for work it did not do, so they are
 * never kept for the key: the key is released and the client's retry with it runs again. The
 * gateway's own failures (no URL, no connection, no answer in time, and also an answer cut off
 * mid-way: its 503 `service_unavailable`; it makes no 502 or 504) are thrown, and released by
 * `releasingOnThrow`. Every other answer is kept: 4xx are deterministic, and a service's 500 (or a
 * 502/504 it relays) may come after it committed, so running it again could write twice
 * (docs/adr/0001, "Amended").
 */
const RELEASED_STATUSES: ReadonlySet<number> = new Set([429, 503]);

/** True for an answer that releases the claimed key rather than being kept (429, 503). */
export const releasesKey = (status: number): boolean => RELEASED_STATUSES.has(status);

/** Stores the final answer for 24 hours, before the client gets it; a retryable "not done" answer releases the key instead. */
export async function completeIdempotency(x: Exchange, g: GatewayContext, answer: ProxyAnswer): Promise<void> {
  if (!x.idempotency) return;
  if (releasesKey(answer.status)) return releaseIdempotency(x, g);
  try {
    await g.idempotency.complete(
      x.idempotency.key,
      { state: 'done', fingerprint: x.idempotency.fingerprint, status: answer.status, contentType: answer.contentType, body: answer.body.toString('base64') },
      g.idempotencyTtlMs,
    );
  } catch (err) {
    g.logger.error({ err, requestId: x.requestId }, 'idempotency record not stored');
  }
}

/** Frees a claimed key whose request did not run (never reached the service, or answered 429/503), so the client can retry with it. */
export async function releaseIdempotency(x: Exchange, g: GatewayContext): Promise<void> {
  if (x.idempotency) await g.idempotency.release(x.idempotency.key).catch(() => {});
}

/** What `work` answers; when it throws instead (no answer to keep: the gateway's own 503, a refusal), the claimed key is released first. */
export async function releasingOnThrow<T>(x: Exchange, g: GatewayContext, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    await releaseIdempotency(x, g);
    throw err;
  }
}
