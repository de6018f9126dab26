/**
 * Services deployed one at a time: the gateway starts with any subset of them. A route whose service
 * has no URL or does not answer is a 503 `service_unavailable` with `Retry-After` that names the
 * service and nothing of where it lives; `/readyz` reports each service without failing on them.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { routedServices } from '../src/config';
import { PUBLIC_OPERATIONS } from '@helpdesk/contracts';
import { bearer, startHarness, type Harness } from './helpers';

type Answer = 'ready' | 'not_ready' | 'hang';

/** A service whose `/readyz` answers as told, counting the probes. */
async function readyzStub(): Promise<{ url: string; probes: () => number; answer: (a: Answer) => void; stop: () => Promise<void> }> {
  let probes = 0;
  let mode: Answer = 'ready';
  const server: Server = createServer((req, res) => {
    if (req.url !== '/readyz') return void res.writeHead(404).end();
    probes++;
    if (mode !== 'hang') res.writeHead(mode === 'ready' ? 200 : 503, { 'content-type': 'application/json' }).end('{}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    probes: () => probes,
    answer: (a) => (mode = a),
    stop: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** Nothing listens there: connection refused. */
const REFUSED = 'http://127.0.0.1:9';
/** A name that never resolves (RFC 6761). */
const UNKNOWN_HOST = 'http://no-such-host.invalid';
/** Probe answers are reused this long (gateway/src/proxy.ts). */
const PROBE_TTL_MS = 1_500;

let h: Harness;
let customers: Awaited<ReturnType<typeof readyzStub>>;
let root: string;

beforeAll(async () => {
  customers = await readyzStub();
  // ticketing: the harness's backend; customers: answers /readyz only; knowledge: refused; community: no such
  // host; the others: no URL.
  h = await startHarness({ services: { customers: customers.url, knowledge: REFUSED, community: UNKNOWN_HOST } });
  root = new URL(h.base).origin;
});
afterAll(async () => {
  await h.stop();
  await customers.stop();
});

/** The 503 of a service that cannot be reached: the error shape, Retry-After, the service named, no address. */
async function expectUnavailable(res: Response, service: string): Promise<void> {
  expect(res.status).toBe(503);
  expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  const text = await res.text();
  const body = JSON.parse(text) as { success: boolean; error: { type: string; code: string; message: string }; meta: { requestId: string } };
  expect(body).toMatchObject({ success: false, error: { type: 'api_error', code: 'service_unavailable' }, meta: { requestId: res.headers.get('x-svc-request-id') } });
  expect(body.error.message).toBe(`The ${service} service is temporarily unavailable; retry later.`);
  expect(text).not.toMatch(/127\.0\.0\.1|localhost|:9\b/);
  expect(body.error.message).not.toMatch(/https?:/);
}

it('a route of a service without a URL answers 503 service_unavailable, naming no address', async () => {
  await expectUnavailable(await fetch(`${h.teamUrl}/webhooks`, { headers: bearer(h.keys.sk_test) }), 'webhooks');
  await expectUnavailable(await fetch(`${h.teamUrl}/notifications`, { headers: bearer(h.keys.sk_test) }), 'notifications');
});

it('a route of a configured service that refuses connections, or whose host does not resolve, answers the same 503', async () => {
  await expectUnavailable(await fetch(`${h.teamUrl}/articles`, { headers: bearer(h.keys.sk_test) }), 'knowledge');
  await expectUnavailable(await fetch(`${h.teamUrl}/community/topics`, { headers: bearer(h.keys.sk_test) }), 'community');
});

it('the routes of the configured services that answer still work', async () => {
  expect((await fetch(`${h.teamUrl}/tickets`, { headers: bearer(h.keys.sk_test) })).status).toBe(200);
});

it('/readyz is 200 about the gateway itself and reports every service: ready, unreachable, not_configured', async () => {
  const res = await fetch(`${root}/readyz`);
  expect(res.status).toBe(200);
  const body = (await res.json()) as { success: boolean; data: { status: string; service: string; upstreams: Record<string, string> } };
  expect(body.success).toBe(true);
  expect(body.data).toMatchObject({ status: 'ok', service: 'gateway' });
  const expected = Object.fromEntries(routedServices(PUBLIC_OPERATIONS).map((s) => [s, 'not_configured']));
  Object.assign(expected, { customers: 'ready', knowledge: 'unreachable', community: 'unreachable' });
  // The harness's ticketing stand-in (kit's createServiceApp) answers its own /readyz.
  expect(body.data.upstreams).toEqual({ ...expected, ticketing: 'ready' });
  expect(JSON.stringify(body)).not.toMatch(/127\.0\.0\.1|https?:/);
});

it('/readyz probes each service at most once in 1.5 s, however often it is asked', async () => {
  await new Promise((r) => setTimeout(r, PROBE_TTL_MS + 50));
  const before = customers.probes();
  const answers = await Promise.all(Array.from({ length: 20 }, () => fetch(`${root}/readyz`).then((r) => r.json())));
  expect(answers.every((a) => (a as { data: { upstreams: Record<string, string> } }).data.upstreams.customers === 'ready')).toBe(true);
  expect(customers.probes() - before).toBe(1);
});

it('a service that answers its /readyz not ready, or not within a second, is unreachable; /readyz stays 200 and quick', async () => {
  customers.answer('not_ready');
  await new Promise((r) => setTimeout(r, PROBE_TTL_MS + 50));
  let res = await fetch(`${root}/readyz`);
  expect(res.status).toBe(200);
  expect(((await res.json()) as { data: { upstreams: Record<string, string> } }).data.upstreams.customers).toBe('unreachable');

  customers.answer('hang');
  await new Promise((r) => setTimeout(r, PROBE_TTL_MS + 50));
  const started = Date.now();
  res = await fetch(`${root}/readyz`);
  expect(res.status).toBe(200);
  expect(((await res.json()) as { data: { upstreams: Record<string, string> } }).data.upstreams.customers).toBe('unreachable');
  expect(Date.now() - started).toBeLessThan(2_500);
  customers.answer('ready');
});
