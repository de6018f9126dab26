/**
 * Slow clients (docs/adr/0063): request headers must arrive within the limit (408 in the error
 * shape, then the connection closes), a body at the minimum rate (else the connection is closed and
 * the service is never asked); 30 such connections are closed while another client is served.
 */
import net from 'node:net';
import { SLOW_CLIENT_LIMITS } from '@helpdesk/kit';
import { bearer, startHarness, type Harness } from './helpers';

const HEADERS_MS = 1000;
let h: Harness;
beforeAll(async () => {
  h = await startHarness({ slowClients: { headersMs: HEADERS_MS, minBytesPerSecond: 1024 } });
});
afterAll(() => h?.stop());

/** A connection that sends `first` and nothing more: what it was answered, and when it closed (ms after opening). */
function holdOpen(first: string): Promise<{ closedAfterMs: number; answer: string }> {
  const { port } = new URL(h.gw.url);
  return new Promise((resolve) => {
    const t0 = Date.now();
    let answer = '';
    const socket = net.connect(Number(port), '127.0.0.1', () => socket.write(first));
    socket.on('data', (d) => (answer += d.toString()));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve({ closedAfterMs: Date.now() - t0, answer }));
    setTimeout(() => socket.destroy(), 20_000).unref();
  });
}

test('the defaults: headers within 10 s, then a body at 1 KiB/s', () => {
  expect(SLOW_CLIENT_LIMITS).toEqual({ headersMs: 10_000, minBytesPerSecond: 1024 });
});

test('30 slow connections are closed (slow headers get 408 in the error shape) while another client is served; the service never sees them', async () => {
  const calls = h.backend.calls();
  const path = new URL(`${h.teamUrl}/tickets`).pathname;
  const slowHeaders = Array.from({ length: 15 }, () => holdOpen(`POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: `));
  const slowBodies = Array.from({ length: 15 }, () =>
    holdOpen(`POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${h.keys.sk_test}\r\nContent-Type: application/json\r\nContent-Length: 50000\r\n\r\n{"title":`),
  );
  // Served meanwhile.
  const served = await fetch(`${h.teamUrl}/tickets`, { headers: bearer(h.keys.sk_test) });
  expect(served.status).toBe(200);
  const headers = await Promise.all(slowHeaders);
  const bodies = await Promise.all(slowBodies);
  for (const c of [...headers, ...bodies]) {
    expect(c.closedAfterMs).toBeGreaterThanOrEqual(HEADERS_MS - 100);
    expect(c.closedAfterMs).toBeLessThan(10_000);
  }
  for (const c of headers) {
    expect(c.answer).toMatch(/^HTTP\/1\.1 408 Request Timeout/);
    expect(c.answer).toContain('"The request headers arrived too slowly."');
  }
  // The slow bodies never reached the service (the one served GET did).
  expect(h.backend.calls()).toBe(calls + 1);
}, 30_000);
