/**
 * A retry with the same Idempotency-Key succeeds (docs/adr/0001, "Amended"): an answer that says
 * "not done, retry" (a service's 503 or 429, the gateway's own 503 for a service it cannot reach) is
 * never kept for the key, so the next request with it runs; a deterministic refusal (400, 404, 409)
 * and a 500 (the service may have committed before failing) are still replayed. Memory store always,
 * Redis when REDIS_URL is set.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Redis from 'ioredis';
import { jsonHeaders, startHarness, type Harness } from './helpers';

/** A fake ticketing on a fixed port: answers `status` with a body naming its call, counts calls; `down()` stops listening. */
async function startUpstream() {
  let calls = 0;
  const upstream = {
    status: 201,
    calls: () => calls,
    url: '',
    async down() {
      if (!server.listening) return;
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
    up: () => (server.listening ? Promise.resolve() : new Promise<void>((r) => server.listen(port, '127.0.0.1', r))),
  };
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      calls++;
      const { status } = upstream;
      const body = status < 300 ? { success: true, data: { id: `tkt_call${calls}` } } : { success: false, error: { code: `status_${status}`, call: calls } };
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...(status === 429 || status === 503 ? { 'retry-after': '1' } : {}) });
      res.end(JSON.stringify(body));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  upstream.url = `http://127.0.0.1:${port}`;
  return upstream;
}

type Upstream = Awaited<ReturnType<typeof startUpstream>>;

function suite(name: string, redisUrl: string | undefined) {
  describe(name, () => {
    const prefix = `hd:test:idem-retry:${process.pid}:${Date.now()}:`;
    let h: Harness;
    let up: Upstream;
    let n = 0;
    const ikey = () => `retry-${Date.now()}-${++n}`;
    const send = (k: string, path = '/tickets') =>
      fetch(`${h.teamUrl}${path}`, { method: 'POST', headers: jsonHeaders(h.keys.sk_test, { 'idempotency-key': k }), body: '{"title":"retry me"}' });

    beforeAll(async () => {
      up = await startUpstream();
      h = await startHarness({ services: { ticketing: up.url }, ...(redisUrl ? { redisUrl, redisKeyPrefix: prefix } : {}) });
    });
    afterEach(async () => {
      up.status = 201;
      await up.up();
    });
    afterAll(async () => {
      await h?.stop();
      if (up) await up.down();
      if (redisUrl) {
        const redis = new Redis(redisUrl);
        const keys = await redis.keys(`${prefix}*`);
        if (keys.length) await redis.del(...keys);
        await redis.quit();
      }
    });

    /** The second request with the key runs and gets 201 (no replay); the third replays that 201 byte for byte. */
    async function thenCreated(k: string, callsBefore: number) {
      const second = await send(k);
      expect(second.status).toBe(201);
      expect(second.headers.get('idempotent-replayed')).toBeNull();
      const created = Buffer.from(await second.arrayBuffer());
      expect(up.calls()).toBe(callsBefore + 1);
      const third = await send(k);
      expect(third.status).toBe(201);
      expect(third.headers.get('idempotent-replayed')).toBe('true');
      expect(Buffer.from(await third.arrayBuffer()).equals(created)).toBe(true);
      expect(up.calls()).toBe(callsBefore + 1);
    }

    it.each([503, 429])('a service’s %i is not kept: the same key runs again once the service answers 201, then replays that', async (status) => {
      const k = ikey();
      up.status = status;
      const calls = up.calls();
      const first = await send(k);
      expect(first.status).toBe(status);
      expect(first.headers.get('idempotent-replayed')).toBeNull();
      await first.arrayBuffer();
      expect(up.calls()).toBe(calls + 1);
      up.status = 201;
      await thenCreated(k, calls + 1);
    });

    it('the gateway’s own 503 for an unreachable service is not kept: the same key runs once it is back', async () => {
      const k = ikey();
      await up.down();
      const calls = up.calls();
      const first = await send(k);
      expect(first.status).toBe(503);
      expect(((await first.json()) as { error: { code: string } }).error.code).toBe('service_unavailable');
      // Still down: the same key is tried again (not 409 in progress, not a replay).
      const again = await send(k);
      expect(again.status).toBe(503);
      expect(again.headers.get('idempotent-replayed')).toBeNull();
      await again.arrayBuffer();
      await up.up();
      await thenCreated(k, calls);
    });

    it('a service that is not configured (the gateway’s 503) leaves the key free, streamed routes too', async () => {
      const k = ikey();
      // dataops has no URL in this gateway; POST /export is streamed (docs/adr/0036).
      for (let i = 0; i < 2; i++) {
        const r = await send(k, '/export');
        expect(r.status).toBe(503);
        expect(((await r.json()) as { error: { code: string } }).error.code).toBe('service_unavailable');
      }
    });

    it.each([400, 404, 409, 500])('a service’s %i is kept and replayed (the service does not run again)', async (status) => {
      const k = ikey();
      up.status = status;
      const first = await send(k);
      expect(first.status).toBe(status);
      const bytes = Buffer.from(await first.arrayBuffer());
      const calls = up.calls();
      up.status = 201;
      const again = await send(k);
      expect(again.status).toBe(status);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(Buffer.from(await again.arrayBuffer()).equals(bytes)).toBe(true);
      expect(up.calls()).toBe(calls);
    });
  });
}

suite('memory store', undefined);
const REDIS_URL = process.env.REDIS_URL;
(REDIS_URL ? suite : (n: string) => describe.skip(n, () => it('needs REDIS_URL', () => {})))('redis store', REDIS_URL);
