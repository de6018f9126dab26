/**
 * The gateway's hop to a service (gateway/src/proxy.ts): what a service answers reaches the client
 * byte for byte, over loopback HTTP and in process alike (the one-process platform, docs/adr/0046):
 * every test runs in both shapes (in-process and over HTTP) against the same request listener.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Socket, type AddressInfo } from 'node:net';
import { ApiError, createLogger, inProcessServices, type InProcessService } from '@helpdesk/kit';
import { Upstreams } from '../src/proxy';

let server: Server;
let upstreams: Upstreams;
let origin: string;
const seen: { method: string; url: string; headers: IncomingMessage['headers']; body: string; overSocket: boolean }[] = [];
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
  '/gone': (_req, res) => {
    res.destroy();
  },
  '/echo': (req, res) => {
    res.writeHead(200, { 'content-type': 'application/octet-stream' });
    res.end(seen.at(-1)!.body);
  },
  '/error': (_req, res) => {
    res.writeHead(500, { 'content-type': 'application/json' });
    res.end('{"success":false,"error":{"code":"internal_error"}}');
  },
  '/events': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(': heartbeat\n\n');
    const timer = setInterval(() => res.write('data: tick\n\n'), 50);
    setTimeout(() => {
      clearInterval(timer);
      res.end('data: last\n\n');
    }, 400);
  },
};

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body, overSocket: req.socket instanceof Socket });
      (routes[req.url!.replace(/^\/base/, '').split('?')[0]] ?? ((_q, r) => r.writeHead(404).end()))(req, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  origin = `http://127.0.0.1:${port}`;
  upstreams = new Upstreams({ svc: `http://127.0.0.1:${port}/base`, down: 'http://127.0.0.1:9' }, createLogger('test', 'silent'));
});
afterAll(async () => {
  await upstreams.close();
  await new Promise((r) => server.close(r));
});

describe.each([
  ['over HTTP', false],
  ['in process', true],
])('%s', (_mode, inProcess) => {
  let local: InProcessService | undefined;
  beforeAll(() => {
    if (inProcess) local = inProcessServices.register(origin, server.listeners('request')[0] as (req: IncomingMessage, res: ServerResponse) => void);
  });
  afterAll(() => local?.close());

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

  it(`reaches the service ${inProcess ? 'without' : 'over'} a socket`, async () => {
    await forward('/ok');
    expect(seen.at(-1)!.overSocket).toBe(!inProcess);
  });

  it('a request without a body has no length on GET and a length of 0 on POST', async () => {
    await forward('/ok');
    expect(seen.at(-1)!.headers['content-length']).toBeUndefined();
    await forward('/ok', { method: 'POST' });
    expect(seen.at(-1)).toMatchObject({ body: '', headers: { 'content-length': '0' } });
    expect(seen.at(-1)!.headers['content-type']).toBeUndefined();
  });

  it('a large body goes and comes back whole', async () => {
    const big = JSON.stringify({ text: 'z'.repeat(3 * 1024 * 1024) });
    const a = await forward('/echo', { method: 'POST', body: big });
    expect(seen.at(-1)!.headers['content-length']).toBe(String(big.length));
    expect(a.status).toBe(200);
    expect(a.body.toString('latin1')).toBe(big);
  });

  it("a service's error answer is relayed as it is", async () => {
    const a = await forward('/error');
    expect({ ...a, body: a.body.toString() }).toEqual({ status: 500, contentType: 'application/json', location: null, body: '{"success":false,"error":{"code":"internal_error"}}' });
  });

  it('a service that drops the request without answering is the 503', async () => {
    const err = await forward('/gone').then(() => null, (e: unknown) => e);
    expect((err as ApiError).code).toBe('service_unavailable');
  });

  it('a stream still streams (over its HTTP connection): the first frame before the last is written', async () => {
    const abort = new AbortController();
    const answer = await upstreams.openStream({ service: 'svc', pathAndQuery: '/events', token: 'tok', requestId: 'req_proxytest0002' }, abort.signal);
    expect(answer).toMatchObject({ status: 200, contentType: 'text/event-stream' });
    const started = Date.now();
    const frames: { at: number; text: string }[] = [];
    for await (const chunk of answer.body) frames.push({ at: Date.now() - started, text: String(chunk) });
    const text = frames.map((f) => f.text).join('');
    expect(text.startsWith(': heartbeat\n\n')).toBe(true);
    expect(text.endsWith('data: last\n\n')).toBe(true);
    expect(frames.length).toBeGreaterThan(2);
    expect(frames[0].at).toBeLessThan(frames.at(-1)!.at - 200);
    expect(seen.at(-1)!.overSocket).toBe(true);
  });

  it('a service that stopped is reached at its URL again', async () => {
    if (!inProcess) return;
    const down = inProcessServices.register('http://127.0.0.1:9', (_req, res) => res.end('answered in process'));
    expect((await forward('/ok', { service: 'down' })).body.toString()).toBe('answered in process');
    await down.close();
    const err = await forward('/ok', { service: 'down' }).then(() => null, (e: unknown) => e);
    expect((err as ApiError).code).toBe('service_unavailable');
  });
});
