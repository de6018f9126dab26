import { startGateway } from '../src';
import { MemoryIdempotencyStore, MemoryRateLimitStore, type IdempotencyStore, type RateLimitStore } from '../src/store/rate-limits-and-idempotency';
import { bearer, jsonHeaders, logger, startBackend, tokens } from './helpers';

/** Redis down: the gateway fails closed with a retryable 503 in the error shape (no 500, no stack). */
it.each([
  ['rate-limit store', true],
  ['idempotency store', false],
])('%s unreachable → 503 service_unavailable', async (_name, rateDown) => {
  const boom = () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:6379'));
  const rateLimits: RateLimitStore = rateDown ? { hit: boom, close: async () => {} } : new MemoryRateLimitStore();
  const idempotency: IdempotencyStore = rateDown
    ? new MemoryIdempotencyStore()
    : { begin: boom, complete: boom, release: boom, close: async () => {} };
  const backend = await startBackend();
  const gw = await startGateway({
    port: 0,
    mongoUrl: 'memory:',
    tokens,
    logger,
    services: { ticketing: backend.url },
    stores: { rateLimits, idempotency },
    keyCacheTtlMs: 0,
    bodyLimitBytes: 1024,
  });
  const team = await gw.admin.createTeam({ name: 'Down' });
  const { key } = await gw.admin.createKey({ teamId: team.id, type: 'secret', mode: 'test' });
  const base = gw.url;
  try {
    const res = rateDown
      ? await fetch(`${base}/auth/whoami`, { headers: bearer(key) })
      : await fetch(`${base}/teams/${team.id}/tickets`, { method: 'POST', headers: jsonHeaders(key, { 'idempotency-key': 'k1' }), body: '{}' });
    expect(res.status).toBe(503);
    const body = (await res.json()) as any;
    expect(body.error.code).toBe('service_unavailable');
    expect(body.error.request_id).toBe(res.headers.get('x-svc-request-id'));
    expect(JSON.stringify(body)).not.toMatch(/ECONNREFUSED|6379/);
    expect(backend.calls()).toBe(0);
    // 1 KiB body limit → 413
    if (!rateDown) {
      const big = await fetch(`${base}/teams/${team.id}/tickets`, { method: 'POST', headers: jsonHeaders(key), body: JSON.stringify({ t: 'x'.repeat(2000) }) });
      expect(big.status).toBe(413);
      expect(((await big.json()) as any).error.code).toBe('parameter_invalid');
    }
  } finally {
    await gw.stop();
    await backend.stop();
  }
});
