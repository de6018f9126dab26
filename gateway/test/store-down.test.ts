import type { AddressInfo } from 'node:net';
import { adminOver } from '../src/admin';
import { KeyResolver } from '../src/auth';
import { tokenMinter } from '../src/fast-token';
import { createGatewayServer, createHandler } from '../src/server';
import { MemoryKeyRepository } from '../src/store/memory';
import { MemoryIdempotencyStore, MemoryRateLimitStore, type IdempotencyStore, type RateLimitStore } from '../src/stores';
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
  const repo = new MemoryKeyRepository();
  const admin = adminOver(repo);
  const team = await admin.createTeam({ name: 'Down' });
  const { key } = await admin.createKey({ teamId: team.id, type: 'secret', mode: 'test' });
  const backend = await startBackend();
  const handler = createHandler({
    resolver: new KeyResolver({ repo, logger, ttlMs: 0, secretPerMinute: 120, publishablePerMinute: 60 }),
    rateLimits,
    idempotency,
    mint: tokenMinter(tokens),
    services: { ticketing: backend.url },
    logger,
    bodyLimitBytes: 1024,
    idempotencyTtlMs: 60_000,
    idempotencyLockMs: 1_000,
  });
  const server = createGatewayServer(handler.listener);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;
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
    await new Promise((r) => server.close(r));
    await handler.close();
    await backend.stop();
  }
});
