import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { createServiceApp, createLogger, InternalTokens, listen, closeServer, sendData, ApiError, ctxOf, TransactionGaveUp } from '../src';

const tokens = new InternalTokens('s'.repeat(32));
let server: Server;
let base: string;

beforeAll(async () => {
  const app = createServiceApp({
    name: 'demo',
    logger: createLogger('demo', 'silent'),
    tokens,
    routes: (a) => {
      a.get('/teams/:teamId/things', (_req, res) => sendData(res, { teamId: ctxOf(res).teamId }));
      a.post('/teams/:teamId/things', (req, res) => sendData(res, req.body, { status: 201 }));
      a.get('/boom', () => {
        throw new Error('secret internals');
      });
      a.get('/conflict', () => {
        throw new ApiError('resource_conflict', 'dup', 'email');
      });
      // The driver's errors for a database it cannot reach, by name, and one wrapped by a unit of work that gave up.
      a.get('/db/:name', (req) => {
        const err = Object.assign(new Error('gone'), { name: req.params.name });
        throw req.query.wrapped ? new TransactionGaveUp(3, 3_000, err) : err;
      });
    },
  });
  server = await listen(app, 0, '127.0.0.1');
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => closeServer(server));

const claims = {
  teamId: '3f1c2a4e-8b7d-4c2a-9f1e-2b3c4d5e6f70', mode: 'test' as const, keyId: 'key_abcdefgh', keyType: 'secret' as const,
  memberId: null, permissions: [], requestId: 'req_abc',
};
async function call(path: string, init: RequestInit = {}, token?: string | null) {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...(init.headers as Record<string, string>) };
  if (token !== null) headers['x-internal-token'] = token ?? (await tokens.sign(claims));
  const res = await fetch(base + path, { ...init, headers });
  return { status: res.status, body: (await res.json()) as any, headers: res.headers };
}

describe('service app', () => {
  it('answers health without a token', async () => {
    expect((await call('/healthz', {}, null)).status).toBe(200);
    expect((await call('/readyz', {}, null)).body.status).toBe('ready');
  });
  it('refuses a request without a valid internal token', async () => {
    const none = await call('/teams/x/things', {}, null);
    expect([none.status, none.body.error.code]).toEqual([401, 'internal_token_invalid']);
    const forged = await call('/teams/x/things', {}, await new InternalTokens('f'.repeat(32)).sign(claims));
    expect(forged.status).toBe(401);
  });
  it('gives routes the verified context and the envelope', async () => {
    const r = await call('/teams/x/things');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ success: true, data: { teamId: claims.teamId }, meta: { requestId: 'req_abc' } });
    expect(r.headers.get('x-svc-request-id')).toBe('req_abc');
  });
  it('answers invalid_json for a broken body', async () => {
    const r = await call('/teams/x/things', { method: 'POST', body: '{"a":' });
    expect([r.status, r.body.error.code, r.body.error.request_id]).toEqual([400, 'invalid_json', 'req_abc']);
  });
  it('hides internals of unexpected errors', async () => {
    const r = await call('/boom');
    expect([r.status, r.body.error.code]).toEqual([500, 'internal_error']);
    expect(JSON.stringify(r.body)).not.toMatch(/secret internals|at /);
  });
  it('renders ApiError and unknown routes in the documented shape', async () => {
    const c = await call('/conflict');
    expect(c.status).toBe(409);
    expect(c.body.error).toMatchObject({ type: 'conflict_error', code: 'resource_conflict', param: 'email', request_id: 'req_abc' });
    expect(typeof c.body.meta.timestamp).toBe('string');
    expect((await call('/nope')).body.error.code).toBe('route_not_found');
  });
});

describe('a database out of reach', () => {
  it.each(['MongoServerSelectionError', 'MongoNetworkError', 'MongoPoolClearedError', 'MongoPoolClosedError', 'MongoServerClosedError', 'MongoTopologyClosedError'])(
    '%s is 503 service_unavailable with Retry-After, also inside a unit of work that gave up',
    async (name) => {
      for (const path of [`/db/${name}`, `/db/${name}?wrapped=1`]) {
        const r = await call(path);
        expect([path, r.status, r.body.error.code, r.headers.get('retry-after')]).toEqual([path, 503, 'service_unavailable', '1']);
      }
    },
  );
  it('any other error is a 500 that names nothing inside', async () => {
    const r = await call('/db/TypeError');
    expect([r.status, r.body.error.code]).toEqual([500, 'internal_error']);
    expect(JSON.stringify(r.body)).not.toContain('gone');
  });
});

describe('per-key internal tokens (docs/adr/0019)', () => {
  const { requestId: _r, ...keyClaims } = claims;
  const perKey = tokens.mintForKey(keyClaims);
  it('take the request id from x-svc-request-id, on the first request and from the cache after it', async () => {
    for (const id of ['req_first', 'req_second']) {
      const r = await call('/teams/x/things', { headers: { 'x-svc-request-id': id } }, perKey);
      expect(r.status).toBe(200);
      expect(r.body.meta.requestId).toBe(id);
      expect(r.headers.get('x-svc-request-id')).toBe(id);
    }
  });
  it('are refused without a request id, or with one that is not an id', async () => {
    for (const headers of [{}, { 'x-svc-request-id': 'not an id' }, { 'x-svc-request-id': 'r'.repeat(101) }] as Record<string, string>[]) {
      const r = await call('/teams/x/things', { headers }, perKey);
      expect([r.status, r.body.error.code]).toEqual([401, 'internal_token_invalid']);
    }
  });
  it('a body is still parsed (the parser only skips requests without one)', async () => {
    const r = await call('/teams/x/things', { method: 'POST', body: '{"a":1}', headers: { 'x-svc-request-id': 'req_post' } }, perKey);
    expect([r.status, r.body.data]).toEqual([201, { a: 1 }]);
  });
});

describe('request logging', () => {
  it('binds the request id to the logger of an unexpected error', async () => {
    const lines: string[] = [];
    const { Writable } = await import('node:stream');
    const pino = (await import('pino')).default;
    const logger = pino({ level: 'error' }, new Writable({ write: (c, _e, cb) => (lines.push(String(c)), cb()) }));
    const app = createServiceApp({ name: 'log', logger, tokens, routes: (a) => a.get('/fail', () => { throw new Error('x'); }) });
    const s = await listen(app, 0, '127.0.0.1');
    const res = await fetch(`http://127.0.0.1:${(s.address() as AddressInfo).port}/fail`, { headers: { 'x-internal-token': await tokens.sign(claims) } });
    await closeServer(s);
    expect(res.status).toBe(500);
    expect(lines.map((l) => JSON.parse(l).requestId)).toEqual(['req_abc']);
  });
});
