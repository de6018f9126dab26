import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { ApiClient } from '../src/client';

/** ApiClient against a stand-in gateway: the request it sends, and the OpenAPI check of every answer. */
interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}
let server: Server;
let base: string;
const seen: Seen[] = [];
let answer: { status: number; body?: unknown; text?: string; type?: string } = { status: 200 };

const TEAM = randomUUID();
const NOW = '2026-01-05T09:30:12.345Z';
const meta = { requestId: 'req_abc', timestamp: NOW };
const whoami = {
  teamId: TEAM,
  teamName: 'Acme Support',
  teamSlug: 'acme-support',
  keyId: 'key_abc',
  keyType: 'secret',
  memberId: null,
  environment: 'test',
  createdAt: NOW,
  subscriptionStatus: 'active',
};

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(answer.status, { 'content-type': answer.type ?? 'application/json', 'x-svc-request-id': 'req_abc' });
      res.end(answer.text ?? (answer.body === undefined ? '' : JSON.stringify(answer.body)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  seen.length = 0;
});

describe('ApiClient', () => {
  it('answers status, headers, parsed body and text of a documented answer, as before', async () => {
    answer = { status: 200, body: { success: true, data: whoami, meta } };
    const api = new ApiClient(`${base}/api/v1`, 'sk_test_abc');
    const res = await api.get('/auth/whoami', { query: { a: 1, 'expand[]': ['x', 'y'] } });
    expect([res.status, res.body.data.teamId, res.headers.get('x-svc-request-id'), JSON.parse(res.text)]).toEqual([200, TEAM, 'req_abc', res.body]);
    expect([seen[0].method, seen[0].url, seen[0].headers.authorization]).toEqual(['GET', '/api/v1/auth/whoami?a=1&expand%5B%5D=x&expand%5B%5D=y', 'Bearer sk_test_abc']);
  });

  it('sends bodies and raw bodies, keys and headers as before (no key with withKey(null), no automatic Idempotency-Key)', async () => {
    answer = { status: 400, body: { success: false, error: { type: 'invalid_request_error', code: 'invalid_json', message: 'x', doc_url: 'd', request_id: 'r' }, meta } };
    const api = new ApiClient(`${base}/api/v1`, 'sk_test_abc');
    const path = `/teams/${TEAM}/tickets`;
    expect((await api.post(path, { title: 'x' })).status).toBe(400);
    expect((await api.request('POST', path, { rawBody: '{', headers: { 'content-type': 'text/plain', 'idempotency-key': 'k1' } })).status).toBe(400);
    expect((await api.withKey(null).patch(`${path}/tkt_abcdefghijkl`, { priority: 'low' }, { key: 'sk_live_x' })).status).toBe(400);
    expect((await api.withKey(null).post(path, { title: 'x' })).status).toBe(400);
    expect(seen.map((s) => [s.method, s.headers.authorization, s.headers['content-type'], s.headers['idempotency-key'], s.body])).toEqual([
      ['POST', 'Bearer sk_test_abc', 'application/json', undefined, '{"title":"x"}'],
      ['POST', 'Bearer sk_test_abc', 'text/plain', 'k1', '{'],
      ['PATCH', 'Bearer sk_live_x', 'application/json', undefined, '{"priority":"low"}'],
      ['POST', undefined, 'application/json', undefined, '{"title":"x"}'],
    ]);
  });

  it('fails the test on an answer the document does not allow, naming method, path, status and the problems', async () => {
    answer = { status: 200, body: { success: true, data: { ...whoami, plan: 'pro' }, meta } };
    const api = new ApiClient(`${base}/api/v1`, 'sk_test_abc');
    await expect(api.get('/auth/whoami')).rejects.toThrow(/OpenAPI check: GET \/api\/v1\/auth\/whoami answered 200[\s\S]*unexpected field "plan"/);
    answer = { status: 418, body: { teapot: true } };
    await expect(api.delete(`/teams/${TEAM}/tickets/tkt_abcdefghijkl`)).rejects.toThrow(/answered 418[\s\S]*status 418 is not documented for deleteTicket/);
    answer = { status: 200, body: { success: true, data: {}, meta } };
    await expect(api.get('/nope')).rejects.toThrow(/must be 404 route_not_found/);
  });

  it('checkOpenApi: false lets a deliberate step outside the API through', async () => {
    answer = { status: 418, body: { teapot: true } };
    const res = await new ApiClient(`${base}/api/v1`, 'sk_test_abc').get('/auth/whoami', { checkOpenApi: false });
    expect([res.status, res.body]).toEqual([418, { teapot: true }]);
  });

  it('does not check what is not JSON, nor answers outside /api/v1', async () => {
    answer = { status: 200, text: '<html>docs</html>', type: 'text/html' };
    const res = await new ApiClient(base, null).get('/docs/');
    expect([res.status, res.body, res.text]).toEqual([200, '<html>docs</html>', '<html>docs</html>']);
    answer = { status: 200, body: { success: true, data: { status: 'ok' } } };
    expect((await new ApiClient(base, null).get('/healthz')).status).toBe(200);
  });

  it('a 429 is answered at once, not retried', async () => {
    answer = {
      status: 429,
      body: { success: false, error: { type: 'rate_limit_error', code: 'rate_limit_exceeded', message: 'x', doc_url: 'd', request_id: 'r', retryAfter: 1 }, meta },
    };
    expect((await new ApiClient(`${base}/api/v1`, 'sk_test_abc').get('/auth/whoami')).status).toBe(429);
    expect(seen).toHaveLength(1);
  });
});
