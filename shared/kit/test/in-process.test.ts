/**
 * In-process hops (src/in-process.ts, docs/adr/0046): the same service app answered over loopback
 * HTTP and in process gives the same status, headers and body bytes for every kind of request; a
 * service that cuts its answer, is too slow or stops fails the call as a lost connection would.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { request } from 'undici';
import { OperationDef } from '@helpdesk/contracts';
import { z } from 'zod';
import {
  ApiError,
  closeServer,
  createLogger,
  createServiceApp,
  inProcessServices,
  internalClient,
  InternalTokens,
  listen,
  requestInProcess,
  sendData,
  type InProcessService,
} from '../src';

const tokens = new InternalTokens('s'.repeat(32));
const claims = {
  teamId: '3f1c2a4e-8b7d-4c2a-9f1e-2b3c4d5e6f70', mode: 'test' as const, keyId: 'key_abcdefgh', keyType: 'secret' as const,
  memberId: null, permissions: [], requestId: 'req_inprocess01',
};
let token: string;
let server: Server;
let base: string;
let local: InProcessService;
let app: ReturnType<typeof createServiceApp>;
/** What the last request looked like on the service's side. */
interface Seen { socketIsNet: boolean; headers: Record<string, unknown>; bodyLength: number }
let lastSeen: Seen | null = null;
/** Requests whose connection closed before their answer finished. */
const closedEarly: string[] = [];

beforeAll(async () => {
  token = await tokens.sign(claims);
  app = createServiceApp({
    name: 'demo',
    logger: createLogger('demo', 'silent'),
    tokens,
    bodyLimit: '64kb',
    routes: (a) => {
      a.use((req, res, next) => {
        lastSeen = { socketIsNet: typeof (req.socket as { setNoDelay?: unknown }).setNoDelay === 'function' && req.socket.constructor.name === 'Socket', headers: { ...req.headers }, bodyLength: 0 };
        res.on('close', () => {
          if (!res.writableFinished) closedEarly.push(req.url);
        });
        next();
      });
      a.get('/things/:id', (req, res) => sendData(res, { id: req.params.id, q: req.query.q ?? null }));
      a.post('/things', (req, res) => {
        lastSeen!.bodyLength = JSON.stringify(req.body ?? null).length;
        sendData(res, { got: req.body ?? null }, { status: 201 });
      });
      a.delete('/things/:id', (_req, res) => {
        res.status(204).end();
      });
      a.get('/repeated', (_req, res) => {
        res.setHeader('x-tag', ['a', 'b']);
        res.append('set-cookie', 'one=1');
        res.append('set-cookie', 'two=2');
        res.type('text/plain').send('two of each');
      });
      a.get('/large', (_req, res) => {
        res.type('application/octet-stream').send(Buffer.alloc(3 * 1024 * 1024, 7));
      });
      a.get('/pieces', (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        let i = 0;
        const next = () => (i < 20 ? res.write(`${String(i++).padStart(3, '0')};`, next) : res.end());
        next();
      });
      a.get('/boom', () => {
        throw new Error('secret internals');
      });
      a.get('/refused', () => {
        throw new ApiError('resource_conflict', 'dup', 'email');
      });
      a.get('/async-boom', async () => {
        await new Promise((r) => setImmediate(r));
        throw new Error('later');
      });
      a.get('/cut', (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
        res.write('{"partial":', () => res.destroy());
      });
      a.get('/hang', () => {
        // never answers
      });
      a.get('/slow', (_req, res) => {
        setTimeout(() => sendData(res, { late: true }), 300);
      });
    },
  });
  server = await listen(app, 0, '127.0.0.1');
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  local = inProcessServices.register(base, app);
});
afterAll(async () => {
  await local.close();
  await closeServer(server);
});

interface Answer { status: number; headers: [string, string][]; body: Buffer }
/** Headers that describe the connection or the time, which differ between two answers by nature. */
const CONNECTION = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);
const pairs = (raw: (Buffer | string)[]) => {
  const out: [string, string][] = [];
  for (let i = 0; i < raw.length; i += 2) if (!CONNECTION.has(raw[i].toString().toLowerCase())) out.push([raw[i].toString().toLowerCase(), raw[i + 1].toString()]);
  return out;
};

interface Req { method: string; path: string; body?: string; headers?: Record<string, string> }
const headersOf = (r: Req) => ({ 'x-internal-token': token, 'x-svc-request-id': 'req_inprocess01', ...(r.body !== undefined ? { 'content-type': 'application/json' } : {}), ...r.headers });

async function overHttp(r: Req): Promise<Answer> {
  const res = await request(base + r.path, { method: r.method as 'GET', headers: headersOf(r), body: r.body });
  const body = Buffer.from(await res.body.arrayBuffer());
  const raw: string[] = [];
  for (const [k, v] of Object.entries(res.headers)) for (const one of Array.isArray(v) ? v : [v!]) raw.push(k, one);
  return { status: res.statusCode, headers: pairs(raw).sort(), body };
}
async function inProcess(r: Req): Promise<Answer> {
  const a = await requestInProcess(local, { method: r.method, path: r.path, headers: headersOf(r), body: r.body ?? null });
  // undici joins a repeated header's values into one list; compare the same way.
  const grouped = new Map<string, string[]>();
  for (const [k, v] of pairs(a.rawHeaders)) grouped.set(k, [...(grouped.get(k) ?? []), v]);
  const headers: [string, string][] = [];
  for (const [k, vs] of grouped) for (const v of vs) headers.push([k, v]);
  return { status: a.status, headers: headers.sort(), body: a.body };
}

const cases: [string, Req][] = [
  ['a read with a path parameter and a query', { method: 'GET', path: '/things/t%C3%BC1?q=x%20y' }],
  ['a JSON body', { method: 'POST', path: '/things', body: JSON.stringify({ title: 'Grüße', n: [1, 2, 3] }) }],
  ['an empty body on a POST', { method: 'POST', path: '/things' }],
  ['a body of an empty string', { method: 'POST', path: '/things', body: '' }],
  ['a large body, under the limit', { method: 'POST', path: '/things', body: JSON.stringify({ text: 'x'.repeat(60_000) }) }],
  ['a body over the limit (413)', { method: 'POST', path: '/things', body: JSON.stringify({ text: 'x'.repeat(70_000) }) }],
  ['a body that is not JSON (400)', { method: 'POST', path: '/things', body: '{"a":' }],
  ['an empty answer (204)', { method: 'DELETE', path: '/things/1' }],
  ['repeated headers', { method: 'GET', path: '/repeated' }],
  ['a large answer', { method: 'GET', path: '/large' }],
  ['an answer in pieces', { method: 'GET', path: '/pieces' }],
  ['a handler that throws (500)', { method: 'GET', path: '/boom' }],
  ['a handler that rejects (500)', { method: 'GET', path: '/async-boom' }],
  ['a refusal (409)', { method: 'GET', path: '/refused' }],
  ['no route (404)', { method: 'GET', path: '/nowhere' }],
  ['no internal token (401)', { method: 'GET', path: '/things/1', headers: { 'x-internal-token': '' } }],
  ['a HEAD request', { method: 'HEAD', path: '/things/1' }],
];

describe('the same request answered over HTTP and in process', () => {
  it.each(cases)('%s', async (_name, r) => {
    lastSeen = null;
    const http = await overHttp(r);
    const httpSeen = lastSeen as Seen | null;
    lastSeen = null;
    const local = await inProcess(r);
    const localSeen = lastSeen as Seen | null;
    expect(local.status).toBe(http.status);
    expect(local.headers).toEqual(http.headers);
    // Byte for byte, but the envelope's timestamp (same length).
    const stamp = (b: Buffer) => Buffer.from(b.toString('latin1').replace(/"timestamp":"[^"]{24}"/g, '"timestamp":"2026-01-01T00:00:00.000Z"'), 'latin1');
    expect(local.body.length).toBe(http.body.length);
    expect(stamp(local.body).equals(stamp(http.body))).toBe(true);
    // Requests refused before the routes (no token, a body refused) are seen there in neither case.
    expect(localSeen === null).toBe(httpSeen === null);
    if (!httpSeen || !localSeen) return;
    expect(httpSeen.socketIsNet).toBe(true);
    expect(localSeen.socketIsNet).toBe(false);
    // The service saw the same request: headers (but the port in host) and body.
    expect({ ...localSeen.headers, host: 'h' }).toEqual({ ...httpSeen.headers, host: 'h', connection: localSeen.headers.connection });
    expect(localSeen.headers.host).toBe(httpSeen.headers.host);
    expect(localSeen.bodyLength).toBe(httpSeen.bodyLength);
  });
});

describe('failures', () => {
  const attempt = (opts: Parameters<typeof requestInProcess>[1]) => requestInProcess(local, { headers: headersOf({ method: 'GET', path: '' }), ...opts }).then(() => null, (e: Error) => e);

  it('an answer cut short by the service is an error after its headers, as a closed connection', async () => {
    const err = await attempt({ method: 'GET', path: '/cut' });
    expect(err).toBeInstanceOf(Error);
    expect((err as { code?: string }).code).toBe('UND_ERR_SOCKET');
  });

  it('the caller\'s timeout fails the call and closes the request on the service\'s side', async () => {
    const started = Date.now();
    const err = await attempt({ method: 'GET', path: '/hang', headersTimeout: 300 });
    expect((err as { code?: string }).code).toBe('UND_ERR_HEADERS_TIMEOUT');
    expect(Date.now() - started).toBeLessThan(2_000);
    await new Promise((r) => setImmediate(r));
    expect(closedEarly).toContain('/hang');
    const total = await attempt({ method: 'GET', path: '/slow', timeout: 100 });
    expect((total as { code?: string }).code).toBe('ABORT_ERR');
  });

  it('internalClient: same answers in process and over HTTP, 404 as null, 5xx and timeouts as service_unavailable', async () => {
    const thing = { service: 'demo', method: 'GET', path: '/things/{id}', success: { status: 200, shape: 'envelope', data: z.object({ id: z.string(), q: z.string().nullable() }) } };
    const ops = {
      getThing: thing,
      missing: { ...thing, path: '/nowhere' },
      boom: { ...thing, path: '/boom' },
      slow: { ...thing, path: '/slow' },
    } as unknown as Record<string, OperationDef>;
    const client = internalClient(ops, base, { timeoutMs: 150 }).forRequest(token, 'req_inprocess01');
    for (const mode of ['http', 'in process']) {
      // Over HTTP while the service is not registered, in process once it is again.
      if (mode === 'http') await local.close();
      else local = inProcessServices.register(base, app);
      expect(await client.call('getThing', { params: { id: 'a/b' } })).toEqual({ id: 'a/b', q: null });
      expect(await client.call('missing')).toBeNull();
      for (const id of ['boom', 'slow']) {
        const err = await client.call(id).then(() => null, (e: unknown) => e);
        expect(err).toBeInstanceOf(ApiError);
        expect((err as ApiError).code).toBe('service_unavailable');
      }
      expect(lastSeen!.socketIsNet).toBe(mode === 'http');
    }
  });

  it('a stopped service is reached at its URL again: 503 when nothing listens there', async () => {
    const { createServer } = await import('node:http');
    const stopped = createServer();
    await new Promise<void>((r) => stopped.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(stopped.address() as AddressInfo).port}`;
    await new Promise((r) => stopped.close(r));
    let answering!: () => void;
    const registered = inProcessServices.register(url, (_req, res) => {
      answering = () => res.end('done');
    });
    const ops = { getThing: { service: 'demo', method: 'GET', path: '/x', success: { status: 200, shape: 'bare', data: z.any() } } } as unknown as Record<string, OperationDef>;
    const client = internalClient(ops, url, { timeoutMs: 2_000 }).forRequest(token, 'req_inprocess01');
    // One request under way when the service stops: stopping waits for it.
    const inFlight = requestInProcess(registered, { method: 'GET', path: '/x' });
    let closed = false;
    const closing = registered.close().then(() => (closed = true));
    await new Promise((r) => setTimeout(r, 50));
    expect(closed).toBe(false);
    answering();
    expect((await inFlight).body.toString()).toBe('done');
    await closing;
    expect(inProcessServices.get(new URL(url).origin)).toBeUndefined();
    const err = await client.call('getThing').then(() => null, (e: unknown) => e);
    expect((err as ApiError).code).toBe('service_unavailable');
  });
});
