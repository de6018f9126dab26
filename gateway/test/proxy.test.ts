/** The gateway's hop to a service (gateway/src/proxy.ts): what a service answers reaches the client byte for byte. */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiError, createLogger } from '@helpdesk/kit';
import { Upstreams } from '../src/proxy';

let server: Server;
let upstreams: Upstreams;
const seen: { method: string; url: string; headers: IncomingMessage['headers']; body: string }[] = [];
const routes: Record<string, (req: IncomingMessage, res: ServerResponse) => void> = {
  '/ok': (_req, res) => {
    res.writeHead(201, { 'content-type': 'application/json; charset=utf-8', location: '/api/v1/teams/t/tickets/tkt_1' });
    res.end('{"success":true,"data":{"title":"Grüße"}}');
  },
  '/empty': (_req, res) => {
    res.writeHead(204);
    res.end();
  },
  '/twice': (_req, res) => {
    res.setHeader('content-type', ['text/plain', 'application/json']);
    res.end('x');
  },
  '/chunked': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    let i = 0;
    const next = () => (i < 50 ? res.write(`${String(i++).padStart(4, '0')}${'y'.repeat(2000)}`, next) : res.end());
    next();
  },
  '/cut': (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
    res.write('{"partial":', () => res.socket?.destroy());
  },
};

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      (routes[req.url!.replace(/^\/base/, '').split('?')[0]] ?? ((_q, r) => r.writeHead(404).end()))(req, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  upstreams = new Upstreams({ svc: `http://127.0.0.1:${port}/base`, down: 'http://127.0.0.1:9' }, createLogger('test', 'silent'));
});
afterAll(async () => {
  await upstreams.close();
  await new Promise((r) => server.close(r));
});

const forward = (path: string, o: { service?: string; method?: string; body?: string } = {}) =>
  upstreams.forward({
    service: o.service ?? 'svc',
    method: o.method ?? 'GET',
    pathAndQuery: path,
    body: o.body === undefined ? null : Buffer.from(o.body),
    contentType: o.body === undefined ? undefined : 'application/json',
    token: 'tok',
    requestId: 'req_proxytest0001',
  });

it('forwards method, path, query, body, token and request id; answers status, content type, location and the exact bytes', async () => {
  const a = await forward('/ok?x=1', { method: 'POST', body: '{"title":"Grüße"}' });
  expect({ ...a, body: a.body.toString('utf8') }).toEqual({
    status: 201,
    contentType: 'application/json; charset=utf-8',
    location: '/api/v1/teams/t/tickets/tkt_1',
    body: '{"success":true,"data":{"title":"Grüße"}}',
  });
  const req = seen.at(-1)!;
  expect(req).toMatchObject({ method: 'POST', url: '/base/ok?x=1', body: '{"title":"Grüße"}' });
  expect(req.headers).toMatchObject({ 'x-internal-token': 'tok', 'x-svc-request-id': 'req_proxytest0001', 'content-type': 'application/json' });
  expect(req.headers.authorization).toBeUndefined();
});

it('an empty answer is an empty body, without content type or location', async () => {
  const a = await forward('/empty', { method: 'DELETE' });
  expect({ ...a, body: a.body.length }).toEqual({ status: 204, contentType: null, location: null, body: 0 });
});

it('a header sent twice is not one value (no content type)', async () => {
  expect((await forward('/twice')).contentType).toBeNull();
});

it('a body in many chunks arrives whole and in order', async () => {
  const a = await forward('/chunked');
  expect(a.body.length).toBe(50 * 2004);
  expect(a.body.toString('latin1', 0, 4)).toBe('0000');
  expect(a.body.toString('latin1', 49 * 2004, 49 * 2004 + 4)).toBe('0049');
});

it('an answer cut short, or no service listening, is the 503 service_unavailable', async () => {
  for (const call of [() => forward('/cut'), () => forward('/ok', { service: 'down' }), () => forward('/ok', { service: 'unknown' })]) {
    const err = await call().then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).code).toBe('service_unavailable');
  }
});
