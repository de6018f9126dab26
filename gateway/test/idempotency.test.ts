import { bearer, jsonHeaders, startHarness, type Harness } from './helpers';

let h: Harness;
let n = 0;
const ikey = () => `idem-${Date.now()}-${++n}`;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.stop();
});

const post = (path: string, body: string, key: string, idem?: string, method = 'POST') =>
  fetch(`${h.teamUrl}${path}`, { method, headers: jsonHeaders(key, idem === undefined ? {} : { 'idempotency-key': idem }), body });

it('replays the original response byte for byte, without running the service again', async () => {
  const k = ikey();
  const first = await post('/tickets', '{"title":"once"}', h.keys.sk_test, k);
  expect(first.status).toBe(201);
  const firstBody = Buffer.from(await first.arrayBuffer());
  const calls = h.backend.calls();
  const again = await post('/tickets', '{"title":"once"}', h.keys.sk_test, k);
  expect(again.status).toBe(201);
  expect(Buffer.from(await again.arrayBuffer()).equals(firstBody)).toBe(true);
  expect(again.headers.get('idempotent-replayed')).toBe('true');
  expect(again.headers.get('content-type')).toBe(first.headers.get('content-type'));
  expect(again.headers.get('x-svc-request-id')).toMatch(/^req_/);
  expect(again.headers.get('x-ratelimit-limit')).toBe('120');
  expect(h.backend.calls()).toBe(calls);
});

it('replays a 5xx from the service too', async () => {
  const k = ikey();
  const first = await post('/tickets', '{"fail":"crash"}', h.keys.sk_test, k);
  expect(first.status).toBe(500);
  const bytes = Buffer.from(await first.arrayBuffer());
  const calls = h.backend.calls();
  const again = await post('/tickets', '{"fail":"crash"}', h.keys.sk_test, k);
  expect(again.status).toBe(500);
  expect(Buffer.from(await again.arrayBuffer()).equals(bytes)).toBe(true);
  expect(h.backend.calls()).toBe(calls);
});

it('works on PATCH', async () => {
  const k = ikey();
  const first = await post('/tickets/tkt_abcdefgh12', '{"title":"p"}', h.keys.sk_test, k, 'PATCH');
  const again = await post('/tickets/tkt_abcdefgh12', '{"title":"p"}', h.keys.sk_test, k, 'PATCH');
  expect(again.status).toBe(200);
  expect(await again.text()).toBe(await first.text());
});

it('same key with another body, endpoint or method → 409 idempotency_key_in_use', async () => {
  const k = ikey();
  expect((await post('/tickets', '{"title":"a"}', h.keys.sk_test, k)).status).toBe(201);
  const calls = h.backend.calls();
  const cases = [
    await post('/tickets', '{"title":"b"}', h.keys.sk_test, k),
    await post('/tickets/tkt_abcdefgh12/messages', '{"title":"a"}', h.keys.sk_test, k),
    await post('/tickets?x=1', '{"title":"a"}', h.keys.sk_test, k),
    await post('/tickets/tkt_abcdefgh12', '{"title":"a"}', h.keys.sk_test, k, 'PATCH'),
  ];
  for (const r of cases) {
    expect(r.status).toBe(409);
    const body = (await r.json()) as any;
    expect(body.error.code).toBe('idempotency_key_in_use');
    expect(body.error.request_id).toBe(r.headers.get('x-svc-request-id'));
  }
  expect(h.backend.calls()).toBe(calls);
});

it('keys are scoped to team and partition', async () => {
  const k = ikey();
  const test = await post('/tickets', '{"title":"a"}', h.keys.sk_test, k);
  const live = await post('/tickets', '{"title":"a"}', h.keys.sk_live, k);
  expect(test.status).toBe(201);
  expect(live.status).toBe(201);
  expect(live.headers.get('idempotent-replayed')).toBeNull();
  const other = await fetch(`${h.base}/teams/${h.other.id}/tickets`, {
    method: 'POST',
    headers: jsonHeaders(h.otherKey, { 'idempotency-key': k }),
    body: '{"title":"a"}',
  });
  expect(other.status).toBe(201);
  expect(other.headers.get('idempotent-replayed')).toBeNull();
});

it('while the first request runs, the same key → 409; 50 concurrent identical POSTs run the service once', async () => {
  const k = ikey();
  const body = '{"title":"race","hold":true}';
  const calls = h.backend.calls();
  // the first request is held in the backend until the other 49 have been answered
  const pending = Array.from({ length: 50 }, () => post('/tickets', body, h.keys.sk_test, k));
  let answered = 0;
  for (const p of pending) void p.then(() => answered++);
  while (answered < 49) await new Promise((r) => setTimeout(r, 20));
  h.backend.release();
  const res = await Promise.all(pending);
  const statuses = res.map((r) => r.status);
  expect(statuses.filter((s) => s === 201)).toHaveLength(1);
  expect(statuses.filter((s) => s === 409)).toHaveLength(49);
  const conflicts = await Promise.all(res.filter((r) => r.status === 409).map((r) => r.json() as Promise<any>));
  expect(conflicts.every((b) => b.error.code === 'idempotency_key_in_use')).toBe(true);
  expect(h.backend.calls()).toBe(calls + 1);
  // once done, it replays
  const later = await post('/tickets', body, h.keys.sk_test, k);
  expect(later.status).toBe(201);
  expect(later.headers.get('idempotent-replayed')).toBe('true');
  expect(h.backend.calls()).toBe(calls + 1);
});

it('requests refused before they ran (400, 401, 403, 429) are not stored', async () => {
  const k = ikey();
  expect((await post('/tickets', '{"title":', h.keys.sk_test, k)).status).toBe(400);
  expect((await post('/tickets', '{"title":"x"}', h.keys.sk_test + 'zz', k)).status).toBe(401);
  expect((await post('/tickets', '{"title":"x"}', h.keys.pk_test, k)).status).toBe(403);
  const ok = await post('/tickets', '{"title":"x"}', h.keys.sk_test, k);
  expect(ok.status).toBe(201);
  expect(ok.headers.get('idempotent-replayed')).toBeNull();
});

it('a 429 is not stored', async () => {
  const limited = await startHarness({ rateLimits: { secretPerMinute: 1 } });
  try {
    const k = ikey();
    const url = `${limited.teamUrl}/tickets`;
    await fetch(`${limited.base}/auth/whoami`, { headers: bearer(limited.keys.sk_test) });
    const r = await fetch(url, { method: 'POST', headers: jsonHeaders(limited.keys.sk_test, { 'idempotency-key': k }), body: '{}' });
    expect(r.status).toBe(429);
    // the same idempotency key with a key that has budget left runs: the 429 was not stored
    const { key } = await limited.gw.admin.createKey({ teamId: limited.team.id, type: 'secret', mode: 'test' });
    const r3 = await fetch(url, { method: 'POST', headers: jsonHeaders(key, { 'idempotency-key': k }), body: '{}' });
    expect(r3.status).toBe(201);
    expect(r3.headers.get('idempotent-replayed')).toBeNull();
  } finally {
    await limited.stop();
  }
});

it('service down (503 from the gateway) frees the key', async () => {
  const down = await startHarness({ services: { ticketing: 'http://127.0.0.1:1' } });
  try {
    const k = ikey();
    const send = () => fetch(`${down.teamUrl}/tickets`, { method: 'POST', headers: jsonHeaders(down.keys.sk_test, { 'idempotency-key': k }), body: '{}' });
    expect((await send()).status).toBe(503);
    const again = await send();
    expect(again.status).toBe(503);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
  } finally {
    await down.stop();
  }
});

it('Idempotency-Key of 255 characters is accepted, 256 → 400 parameter_invalid', async () => {
  expect((await post('/tickets', '{}', h.keys.sk_test, 'k'.repeat(255))).status).toBe(201);
  const r = await post('/tickets', '{}', h.keys.sk_test, 'k'.repeat(256));
  expect(r.status).toBe(400);
  const body = (await r.json()) as any;
  expect(body.error.code).toBe('parameter_invalid');
  expect(body.error.param).toBe('Idempotency-Key');
});

it('GET and DELETE ignore Idempotency-Key', async () => {
  const k = ikey();
  const calls = h.backend.calls();
  await fetch(`${h.teamUrl}/tickets`, { headers: { ...bearer(h.keys.sk_test), 'idempotency-key': k } });
  await fetch(`${h.teamUrl}/tickets`, { headers: { ...bearer(h.keys.sk_test), 'idempotency-key': k } });
  expect(h.backend.calls()).toBe(calls + 2);
});
