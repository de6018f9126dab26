import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import {
  createHelpdeskClient,
  dataOf,
  errorOf,
  HelpdeskError,
  paginationOf,
  retryAfterSeconds,
  unwrap,
  unwrapPage,
  type HelpdeskClient,
} from '../src';
import { errorBody, meta, startTestServer, type TestServer } from './server';

const TEAM = '8f0e1c2a-1b2c-4d5e-8f90-123456789abc';
const KEY = 'sk_test_abcdefghijklmnopqrstuvwx';
const ticket = (n: number) => ({
  id: `tkt_${String(n).padStart(24, '0')}`,
  title: `Ticket ${n}`,
  status: 'new',
  priority: 'normal',
});

let srv: TestServer;
let hd: HelpdeskClient;

beforeAll(async () => {
  srv = await startTestServer();
  hd = createHelpdeskClient({ baseUrl: srv.baseUrl, apiKey: KEY });
});
afterAll(() => srv.close());

/** Asserts that `p` rejects with a HelpdeskError and returns it. */
async function refusal(p: Promise<unknown>): Promise<HelpdeskError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(HelpdeskError);
  return err as HelpdeskError;
}

describe('both success shapes', () => {
  it('the envelope: unwrap answers `data`; the key and path reach the server', async () => {
    srv.handle(() => ({ status: 200, body: { success: true, data: ticket(1), meta: meta() } }));
    const res = await hd.GET('/teams/{teamId}/tickets/{ticketId}', { params: { path: { teamId: TEAM, ticketId: ticket(1).id } } });
    expect(unwrap(res)).toEqual(ticket(1));
    expect(srv.received[0].url.pathname).toBe(`/api/v1/teams/${TEAM}/tickets/${ticket(1).id}`);
    expect(srv.received[0].headers.authorization).toBe(`Bearer ${KEY}`);
  });

  it('a bare customer group: unwrap answers the object itself', async () => {
    const group = { id: 'cgrp_abcdefgh', name: 'VIP', description: null, memberCount: 0 };
    srv.handle(() => ({ status: 200, body: group }));
    expect(unwrap(await hd.GET('/teams/{teamId}/customer-groups/{groupId}', { params: { path: { teamId: TEAM, groupId: group.id } } }))).toEqual(group);
  });

  it('lists: pagination in meta (envelope) and top-level (bare {data, pagination})', async () => {
    const pagination = { page: 1, pageSize: 2, total: 2, totalPages: 1, hasMore: false };
    srv.handle(() => ({ status: 200, body: { success: true, data: [ticket(1), ticket(2)], meta: meta({ pagination }) } }));
    expect(unwrapPage(await hd.GET('/teams/{teamId}/tickets', { params: { path: { teamId: TEAM } } }))).toEqual({ data: [ticket(1), ticket(2)], pagination });

    srv.handle(() => ({ status: 200, body: { data: [{ id: 'cgrp_abcdefgh', name: 'VIP' }], pagination } }));
    const page = unwrapPage(await hd.GET('/teams/{teamId}/customer-groups', { params: { path: { teamId: TEAM } } }));
    expect(page).toEqual({ data: [{ id: 'cgrp_abcdefgh', name: 'VIP' }], pagination });
  });

  it('client.data / client.page take the call itself', async () => {
    srv.handle(() => ({ status: 201, body: { success: true, data: ticket(3), meta: meta() } }));
    expect(await hd.data(hd.POST('/teams/{teamId}/tickets', { params: { path: { teamId: TEAM } }, body: { title: 'x' }, idempotencyKey: 'order-4711' }))).toEqual(ticket(3));
    expect(srv.received[0].headers['idempotency-key']).toBe('order-4711');
    const pagination = { page: 1, pageSize: 25, total: 0, totalPages: 0, hasMore: false };
    srv.handle(() => ({ status: 200, body: { data: [], pagination } }));
    expect(await hd.page(hd.GET('/teams/{teamId}/customer-groups', { params: { path: { teamId: TEAM } } }))).toEqual({ data: [], pagination });
    srv.handle(() => ({ status: 404, body: errorBody('not_found_error', 'RESOURCE_MISSING', 'No such group.') }));
    const err = await refusal(hd.data(hd.GET('/teams/{teamId}/customer-groups/{groupId}', { params: { path: { teamId: TEAM, groupId: TEAM } } })));
    expect([err.status, err.code, err.requestId]).toEqual([404, 'RESOURCE_MISSING', 'req_err']);
  });

  it('dataOf / paginationOf read any body', () => {
    const p = { page: 1, pageSize: 20, total: 0, totalPages: 0 };
    expect(dataOf({ success: true, data: { a: 1 }, meta: meta() })).toEqual({ a: 1 });
    expect(dataOf({ success: true, data: [], meta: meta(), pagination: p })).toEqual([]);
    expect(dataOf({ data: [1], pagination: p })).toEqual([1]);
    expect(dataOf({ id: 'cgrp_x', name: 'bare' })).toEqual({ id: 'cgrp_x', name: 'bare' });
    expect(paginationOf({ success: true, data: [], meta: meta({ pagination: p }) })).toEqual(p);
    expect(paginationOf({ success: true, data: [], meta: meta(), pagination: p })).toEqual(p);
    expect(paginationOf({ data: [], pagination: p })).toEqual(p);
    expect(paginationOf({ id: 'x' })).toBeUndefined();
  });
});

describe('paginate', () => {
  it('walks 3 pages (page 1, 2, 3 with the given pageSize) until hasMore is false', async () => {
    const all = Array.from({ length: 7 }, (_, i) => ticket(i + 1));
    srv.handle((req) => {
      const page = Number(req.url.searchParams.get('page'));
      const pageSize = Number(req.url.searchParams.get('pageSize'));
      const data = all.slice((page - 1) * pageSize, page * pageSize);
      const totalPages = Math.ceil(all.length / pageSize);
      return { status: 200, body: { success: true, data, meta: meta({ pagination: { page, pageSize, total: all.length, totalPages, hasMore: page < totalPages } }) } };
    });
    const seen = [];
    for await (const t of hd.paginate('/teams/{teamId}/tickets', { params: { path: { teamId: TEAM }, query: { pageSize: 3, priority: 'normal' } } })) seen.push(t);
    expect(seen).toEqual(all);
    expect(srv.received.map((r) => [r.url.searchParams.get('page'), r.url.searchParams.get('pageSize'), r.url.searchParams.get('priority')])).toEqual([
      ['1', '3', 'normal'],
      ['2', '3', 'normal'],
      ['3', '3', 'normal'],
    ]);
  });

  it('bare lists too (top-level pagination), and stops at totalPages when hasMore is absent', async () => {
    srv.handle((req) => {
      const page = Number(req.url.searchParams.get('page'));
      return { status: 200, body: { data: [{ id: `cgrp_${page}aaaaaaa`, name: `g${page}` }], pagination: { page, pageSize: 1, total: 2, totalPages: 2 } } };
    });
    const names = [];
    for await (const g of hd.paginate('/teams/{teamId}/customer-groups', { params: { path: { teamId: TEAM }, query: { pageSize: 1 } } })) names.push(g.name);
    expect(names).toEqual(['g1', 'g2']);
    expect(srv.received).toHaveLength(2);
  });

  it('a refusal on a later page throws HelpdeskError', async () => {
    srv.handle((req) =>
      req.url.searchParams.get('page') === '1'
        ? { status: 200, body: { success: true, data: [ticket(1)], meta: meta({ pagination: { page: 1, pageSize: 1, total: 2, totalPages: 2, hasMore: true } }) } }
        : { status: 403, body: errorBody('authorization_error', 'insufficient_permissions', 'No.') },
    );
    const seen: unknown[] = [];
    const err = await refusal(
      (async () => {
        for await (const t of hd.paginate('/teams/{teamId}/tickets', { params: { path: { teamId: TEAM }, query: { pageSize: 1 } } })) seen.push(t);
      })(),
    );
    expect(seen).toHaveLength(1);
    expect([err.status, err.code]).toEqual([403, 'insufficient_permissions']);
  });
});

describe('429 and retries', () => {
  const limited = (retryAfter: string) => ({
    status: 429,
    body: errorBody('rate_limit_error', 'rate_limit_exceeded', 'Slow down.', { retryAfter: Number(retryAfter) }),
    headers: { 'retry-after': retryAfter },
  });

  it('a 429 with Retry-After: 1 is retried after a second, with the same Idempotency-Key and body, then succeeds', async () => {
    srv.handle((_req, n) => (n === 1 ? limited('1') : { status: 201, body: { success: true, data: ticket(9), meta: meta() } }));
    const started = Date.now();
    const res = await hd.POST('/teams/{teamId}/tickets', { params: { path: { teamId: TEAM } }, body: { title: 'Printer on fire', priority: 'urgent' } });
    expect(unwrap(res)).toEqual(ticket(9));
    expect(srv.received).toHaveLength(2);
    const [first, retry] = srv.received;
    expect(retry.at - first.at).toBeGreaterThanOrEqual(900);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    // no key was given: the client made one, and sent the same one again
    expect(first.headers['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/);
    expect(retry.headers['idempotency-key']).toBe(first.headers['idempotency-key']);
    expect(JSON.parse(retry.body)).toEqual({ title: 'Printer on fire', priority: 'urgent' });
    expect(retry.body).toBe(first.body);
    expect(retry.headers['content-type']).toBe('application/json');
  });

  it('an explicit Idempotency-Key (option, header or params.header) is sent as is, and again on the retry', async () => {
    for (const init of [
      { idempotencyKey: 'key-option' },
      { headers: { 'idempotency-key': 'key-option' } },
      { params: { path: { teamId: TEAM, ticketId: ticket(1).id }, header: { 'Idempotency-Key': 'key-option' } } },
    ]) {
      srv.handle((_req, n) => (n === 1 ? limited('0') : { status: 200, body: { success: true, data: ticket(1), meta: meta() } }));
      await hd.PATCH('/teams/{teamId}/tickets/{ticketId}', { params: { path: { teamId: TEAM, ticketId: ticket(1).id } }, body: { priority: 'low' }, ...init });
      expect(srv.received.map((r) => r.headers['idempotency-key'])).toEqual(['key-option', 'key-option']);
    }
  });

  it('GET and DELETE get no automatic key; autoIdempotencyKey: false sends none', async () => {
    srv.handle(() => ({ status: 200, body: { success: true, data: ticket(1), meta: meta() } }));
    await hd.GET('/teams/{teamId}/tickets/{ticketId}', { params: { path: { teamId: TEAM, ticketId: ticket(1).id } } });
    await hd.DELETE('/teams/{teamId}/tickets/{ticketId}', { params: { path: { teamId: TEAM, ticketId: ticket(1).id } } });
    const plain = createHelpdeskClient({ baseUrl: srv.baseUrl, apiKey: KEY, autoIdempotencyKey: false });
    await plain.POST('/teams/{teamId}/tickets', { params: { path: { teamId: TEAM } }, body: { title: 'x' } });
    expect(srv.received.map((r) => r.headers['idempotency-key'])).toEqual([undefined, undefined, undefined]);
  });

  it('gives up after the limit (default 2 retries): HelpdeskError rate_limit_exceeded with retryAfter', async () => {
    srv.handle(() => limited('0'));
    const err = await refusal(hd.GET('/teams/{teamId}/tickets', { params: { path: { teamId: TEAM } } }).then(unwrap));
    expect([err.status, err.type, err.code, err.retryAfter]).toEqual([429, 'rate_limit_error', 'rate_limit_exceeded', 0]);
    expect(srv.received).toHaveLength(3);
  });

  it('the limit is configurable, per client and per call', async () => {
    srv.handle(() => limited('0'));
    const once = createHelpdeskClient({ baseUrl: srv.baseUrl, apiKey: KEY, maxRetries: 1 });
    await once.GET('/auth/whoami');
    expect(srv.received).toHaveLength(2);
    srv.handle(() => limited('0'));
    await hd.GET('/auth/whoami', { retries: 0 });
    expect(srv.received).toHaveLength(1);
  });

  it('a Retry-After beyond maxRetryWaitMs is not waited for', async () => {
    srv.handle(() => limited('30'));
    const impatient = createHelpdeskClient({ baseUrl: srv.baseUrl, apiKey: KEY, maxRetryWaitMs: 5_000 });
    const started = Date.now();
    const err = await refusal(impatient.GET('/auth/whoami').then(unwrap));
    expect(Date.now() - started).toBeLessThan(2_000);
    expect([err.code, err.retryAfter]).toEqual(['rate_limit_exceeded', 30]);
    expect(srv.received).toHaveLength(1);
  });

  it.each([400, 401, 403, 404, 409, 422, 500, 503])('never retries a %i', async (status) => {
    srv.handle(() => ({ status, body: errorBody('invalid_request_error', 'whatever', 'No.'), headers: { 'retry-after': '0' } }));
    const err = await refusal(hd.POST('/teams/{teamId}/tickets', { params: { path: { teamId: TEAM } }, body: { title: 'x' } }).then(unwrap));
    expect(err.status).toBe(status);
    expect(srv.received).toHaveLength(1);
  });

  it('Retry-After as an HTTP date', () => {
    const now = Date.parse('2026-01-05T09:30:00Z');
    expect(retryAfterSeconds('Mon, 05 Jan 2026 09:30:05 GMT', now)).toBe(5);
    expect(retryAfterSeconds('7', now)).toBe(7);
    expect(retryAfterSeconds(null, now)).toBeUndefined();
    expect(retryAfterSeconds('soon', now)).toBeUndefined();
  });
});

describe('HelpdeskError', () => {
  it('maps every field of the error body', async () => {
    srv.handle(() => ({ status: 400, body: errorBody('invalid_request_error', 'parameter_invalid', 'title is too long.', { param: 'title', request_id: 'req_body' }) }));
    const err = await refusal(hd.POST('/teams/{teamId}/tickets', { params: { path: { teamId: TEAM } }, body: { title: 'x' } }).then(unwrap));
    expect(err).toBeInstanceOf(Error);
    expect(err.name).toBe('HelpdeskError');
    expect({ status: err.status, type: err.type, code: err.code, param: err.param, requestId: err.requestId, retryAfter: err.retryAfter, docUrl: err.docUrl }).toEqual({
      status: 400,
      type: 'invalid_request_error',
      code: 'parameter_invalid',
      param: 'title',
      requestId: 'req_body',
      retryAfter: undefined,
      docUrl: 'https://docs.helpdesk.dev/errors#parameter_invalid',
    });
    expect(err.body).toEqual(errorBody('invalid_request_error', 'parameter_invalid', 'title is too long.', { param: 'title', request_id: 'req_body' }));
    expect(err.message).toBe('400 parameter_invalid: title is too long. (param: title)');
  });

  it('keeps uppercase codes as sent (PARAMETER_INVALID)', async () => {
    srv.handle(() => ({ status: 400, body: errorBody('invalid_request_error', 'PARAMETER_INVALID', 'name is required.', { param: 'name' }) }));
    const err = await refusal(hd.POST('/teams/{teamId}/customer-groups', { params: { path: { teamId: TEAM } }, body: { name: 'x' } }).then(unwrap));
    expect([err.code, err.param]).toEqual(['PARAMETER_INVALID', 'name']);
  });

  it('a body that is not an error body: code http_<status>, request id from x-svc-request-id', async () => {
    srv.handle(() => ({ status: 502, text: 'Bad gateway' }));
    const err = await refusal(hd.GET('/auth/whoami').then(unwrap));
    expect({ status: err.status, type: err.type, code: err.code, requestId: err.requestId, body: err.body }).toEqual({
      status: 502,
      type: 'api_error',
      code: 'http_502',
      requestId: 'req_1',
      body: 'Bad gateway',
    });
  });
});

describe('the low-level request', () => {
  it('answers status, headers, parsed body and text, without throwing on a refusal', async () => {
    srv.handle(() => ({ status: 409, body: errorBody('conflict_error', 'resource_conflict', 'Taken.', { param: 'email' }) }));
    const res = await hd.request('POST', `/teams/${TEAM}/customers`, { body: { name: 'A', email: 'a@example.com' } });
    expect(res.status).toBe(409);
    expect(res.headers.get('x-svc-request-id')).toBe('req_1');
    expect(res.body.error.code).toBe('resource_conflict');
    expect(JSON.parse(res.text)).toEqual(res.body);
    expect(errorOf(res)).toMatchObject({ status: 409, code: 'resource_conflict', param: 'email' });
    const sent = srv.received[0];
    expect([sent.headers['content-type'], sent.headers.authorization, sent.headers['idempotency-key'], sent.body]).toEqual([
      'application/json',
      `Bearer ${KEY}`,
      undefined,
      '{"name":"A","email":"a@example.com"}',
    ]);
  });

  it('sends rawBody as is, its own headers, no key with key: null, another key, repeated query values', async () => {
    srv.handle(() => ({ status: 200, text: '<html>docs</html>' }));
    const res = await hd.request('PATCH', `/teams/${TEAM}/tickets/x`, {
      rawBody: '{priority:high}',
      headers: { 'content-type': 'text/plain', 'Idempotency-Key': 'raw-key' },
      key: null,
      query: { 'expand[]': ['customer', 'messages'], page: 2, skip: undefined },
    });
    expect([res.status, res.body, res.text]).toEqual([200, '<html>docs</html>', '<html>docs</html>']);
    await hd.request('GET', '/auth/whoami', { key: 'pk_test_other' });
    await hd.withKey('sk_live_x').request('DELETE', '/x', { idempotencyKey: 'k-del' });
    const [a, b, c] = srv.received;
    expect([a.body, a.headers['content-type'], a.headers.authorization, a.headers['idempotency-key']]).toEqual(['{priority:high}', 'text/plain', undefined, 'raw-key']);
    expect(a.url.search).toBe('?expand%5B%5D=customer&expand%5B%5D=messages&page=2');
    expect(b.headers.authorization).toBe('Bearer pk_test_other');
    expect([c.headers.authorization, c.headers['idempotency-key']]).toEqual(['Bearer sk_live_x', 'k-del']);
  });

  it('reports a 429 at once by default; retries only when asked, with the same key', async () => {
    srv.handle(() => ({ status: 429, body: errorBody('rate_limit_error', 'rate_limit_exceeded', 'Slow down.', { retryAfter: 0 }), headers: { 'retry-after': '0' } }));
    expect((await hd.request('GET', '/auth/whoami')).status).toBe(429);
    expect(srv.received).toHaveLength(1);
    srv.handle((_req, n) => (n < 3 ? { status: 429, headers: { 'retry-after': '0' } } : { status: 201, body: { ok: true } }));
    const res = await hd.request('POST', '/x', { body: { a: 1 }, idempotencyKey: 'same', retries: 2 });
    expect(res.status).toBe(201);
    expect(srv.received.map((r) => [r.headers['idempotency-key'], r.body])).toEqual([
      ['same', '{"a":1}'],
      ['same', '{"a":1}'],
      ['same', '{"a":1}'],
    ]);
  });

  it('an empty body is undefined', async () => {
    srv.handle(() => ({ status: 204 }));
    const res = await hd.request('DELETE', '/x');
    expect([res.status, res.body, res.text]).toEqual([204, undefined, '']);
  });
});

describe('the package runs in browsers too', () => {
  it('src imports nothing Node-only (fetch, URL, Headers, crypto.randomUUID from globalThis)', () => {
    const dir = path.resolve(__dirname, '../src');
    for (const file of readdirSync(dir)) {
      const text = readFileSync(path.join(dir, file), 'utf8');
      const imports = [...text.matchAll(/(?:from\s+|require\(|import\()\s*['"]([^'"]+)['"]/g)].map((m) => m[1]);
      for (const spec of imports) expect([file, spec]).toEqual([file, expect.stringMatching(/^(\.\/|openapi-fetch$)/)]);
      expect([file, /\b(process|Buffer|__dirname)\b/.test(text.replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, ''))]).toEqual([file, false]);
    }
  });
});
