/**
 * Deliveries through the whole platform: tickets created through the gateway reach real HTTP
 * receivers on 127.0.0.1 (WEBHOOKS_ALLOW_LOOPBACK on, short retry settings), signed, retried,
 * logged and redeliverable; trigger-test; every refusal of those endpoints.
 */
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import type { EventEnvelope } from '@helpdesk/contracts';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { eventually, expectError, expectOk, ISO } from './helpdesk-helpers';
import {
  createTicket,
  createWebhook,
  DLV_ID,
  EVT_ID,
  newTeam,
  octokitVerify,
  readDelivery,
  Receiver,
  waitForDelivery,
  WebhookEventLog,
  type Received,
  type Responder,
  type Team,
} from './webhooks-helpers';

const SCHEDULE = [150, 300, 450];
/** Long enough that a prompt answer is never late on a loaded machine (a 400 ms one once was in CI). */
// Long enough that a loaded machine answers a plain receiver within it (a first attempt must succeed).
const TIMEOUT_MS = 3_000;
let tp: TestPlatform;
let log: WebhookEventLog;
const published: EventEnvelope[] = [];
const receivers: Receiver[] = [];

beforeAll(async () => {
  tp = await startTestPlatform({ webhooks: { allowLoopback: true, timeoutMs: TIMEOUT_MS, retryScheduleMs: SCHEDULE, jitter: 0, pollIntervalMs: 50, retryAfterMaxMs: 10_000 } });
  log = await WebhookEventLog.start(tp);
  await tp.observe('webhooks', ['#'], async (e) => {
    published.push(e);
  });
}, 60_000);
afterAll(async () => {
  await tp?.stop();
  for (const r of receivers) await r.close();
}, 60_000);

async function receiver(respond?: Responder): Promise<Receiver> {
  const r = await Receiver.start(respond);
  receivers.push(r);
  return r;
}
const body = (r: Received) => JSON.parse(r.body);
const headersOf = (r: Received) => Object.fromEntries(Object.entries(r.headers).map(([k, v]) => [k, String(v)]));
const W = (t: Team) => `${t.path}/webhooks`;

describe('a delivery', () => {
  it('is a signed JSON POST that @octokit/webhooks-methods and standardwebhooks verify; a replay 5 minutes later is rejected', async () => {
    const t = await newTeam(tp);
    const rx = await receiver();
    const w = await createWebhook(t, { name: 'signed', url: rx.url('/hook'), events: 'ticket.created' });
    const ticket = await createTicket(t, 'Signed ticket');
    const [req] = await rx.waitFor((r) => r.length === 1, 'the delivery');

    expect(req.method).toBe('POST');
    expect(req.path).toBe('/hook');
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.headers['user-agent']).toBe('Helpdesk-Webhooks/1.0');
    expect(req.headers['x-svc-event']).toBe('ticket.created');
    expect(req.headers['x-svc-delivery']).toMatch(DLV_ID);
    expect(req.headers['webhook-id']).toBe(req.headers['x-svc-delivery']);
    expect(req.headers['x-svc-request-id']).toBe(ticket.requestId);
    const ts = Number(req.headers['webhook-timestamp']);
    expect(Math.abs(ts - req.at / 1000)).toBeLessThan(5);

    const b = body(req);
    expect(Object.keys(b)).toEqual(['id', 'type', 'createdAt', 'teamId', 'mode', 'data']);
    expect(b).toMatchObject({ type: 'ticket.created', teamId: t.keys.teamId, mode: 'test', data: { ticket: { id: ticket.id, title: 'Signed ticket' } } });
    expect(b.id).toMatch(EVT_ID);
    expect(b.createdAt).toMatch(ISO);
    // createdAt is when the event happened; data is the event's payload, as published.
    const event = (await eventually('the ticket.created event is seen', async () => published.find((e) => e.id === b.id)))!;
    expect(b.createdAt).toBe(event.occurredAt);
    expect(b.data).toEqual(event.data);

    // The receiver's check with GitHub's library, on the raw body: sha256= + hex HMAC keyed with the secret.
    expect(await octokitVerify(w.secret, req.body, String(req.headers['x-svc-signature']))).toBe(true);
    expect(await octokitVerify(w.secret, req.body.replace('Signed ticket', 'Forged ticket'), String(req.headers['x-svc-signature']))).toBe(false);

    // Standard Webhooks: a fresh delivery verifies; the same request replayed > 5 minutes later does not.
    const wh = new Webhook(w.secret);
    expect(wh.verify(req.body, headersOf(req))).toEqual(b);
    jest.useFakeTimers({ now: ts * 1000 + 5 * 60_000 + 1_000 });
    try {
      expect(() => wh.verify(req.body, headersOf(req))).toThrow(new WebhookVerificationError('Message timestamp too old'));
    } finally {
      jest.useRealTimers();
    }

    const d = await waitForDelivery(t, w.id, String(req.headers['x-svc-delivery']), 'succeeded');
    expect(d).toMatchObject({ webhookId: w.id, eventId: b.id, eventType: 'ticket.created', test: false, attemptCount: 1, nextAttemptAt: null, payload: b });
    expect(d.attempts).toEqual([{ attempt: 1, at: expect.stringMatching(ISO), statusCode: 200, durationMs: expect.any(Number), error: null }]);
  });

  it('a 500 is retried on the schedule with the same x-svc-delivery, each attempt signed afresh, until it succeeds', async () => {
    const t = await newTeam(tp);
    const rx = await receiver((_r: Received, n: number) => ({ status: n <= 2 ? 500 : 200 }));
    const w = await createWebhook(t, { name: 'flaky', url: rx.url(), events: 'ticket.*' });
    await createTicket(t);
    const reqs = await rx.waitFor((r) => r.length === 3, 'three attempts');
    const id = String(reqs[0].headers['x-svc-delivery']);
    expect(reqs.map((r) => r.headers['x-svc-delivery'])).toEqual([id, id, id]);
    expect(reqs.map((r) => r.body)).toEqual([reqs[0].body, reqs[0].body, reqs[0].body]);
    expect(reqs[1].at - reqs[0].at).toBeGreaterThanOrEqual(SCHEDULE[0]);
    expect(reqs[2].at - reqs[1].at).toBeGreaterThanOrEqual(SCHEDULE[1]);
    for (const r of reqs) expect(new Webhook(w.secret).verify(r.body, headersOf(r))).toBeTruthy();
    expect(rx.effects).toEqual([id]);
    const d = await waitForDelivery(t, w.id, id, 'succeeded');
    expect(d.attempts.map((a: any) => [a.attempt, a.statusCode, a.error])).toEqual([[1, 500, 'receiver answered 500'], [2, 500, 'receiver answered 500'], [3, 200, null]]);
  });

  it('a receiver slower than the timeout is retried; one that deduplicates by x-svc-delivery applies each delivery exactly once', async () => {
    const t = await newTeam(tp);
    // Every first request is applied and then answered too late (after the timeout): the retry is a duplicate.
    const rx = await receiver((_r: Received, n: number) => (n === 1 ? { status: 200, delayMs: TIMEOUT_MS * 2 } : { status: 200 }));
    const w = await createWebhook(t, { name: 'slow', url: rx.url(), events: 'ticket.created' });
    const tickets = [];
    for (let i = 0; i < 5; i++) tickets.push(await createTicket(t, `slow ${i}`));
    await rx.waitFor((r) => r.length >= 10, 'two requests per delivery');
    const ids = [...new Set(rx.requests.map((r) => String(r.headers['x-svc-delivery'])))];
    expect(ids).toHaveLength(5);
    expect([...rx.effects].sort()).toEqual([...ids].sort()); // one effect per delivery, though each arrived twice
    expect(rx.requests.map((r) => body(r).data.ticket.id).sort()).toEqual([...tickets.map((x) => x.id), ...tickets.map((x) => x.id)].sort());
    for (const id of ids) {
      const d = await waitForDelivery(t, w.id, id, 'succeeded');
      expect(d.attempts).toHaveLength(2);
      expect(d.attempts[0]).toMatchObject({ statusCode: null, error: `timeout: no complete answer within ${TIMEOUT_MS} ms` });
      expect(d.attempts[0].durationMs).toBeGreaterThanOrEqual(TIMEOUT_MS - 20);
      expect(d.attempts[0].durationMs).toBeLessThan(TIMEOUT_MS * 2);
      expect(d.attempts[1]).toMatchObject({ statusCode: 200, error: null });
    }
  });

  it('410 Gone disables the webhook at once, emits webhook.disabled, and nothing more is sent to it', async () => {
    const t = await newTeam(tp);
    const gone = await receiver(() => ({ status: 410 }));
    const ok = await receiver();
    const w = await createWebhook(t, { name: 'gone', url: gone.url(), events: 'ticket.created' });
    await createTicket(t);
    const [req] = await gone.waitFor((r) => r.length === 1, 'the delivery');
    const e = await log.waitFor((x) => x.type === 'webhook.disabled' && x.data.webhook.id === w.id, 'webhook.disabled');
    expect(e).toMatchObject({ teamId: t.keys.teamId, mode: 'test', requestId: null, actor: { type: 'system', id: null } });
    expect(e.data).toMatchObject({ reason: 'gone', lastStatusCode: 410, failingSince: expect.stringMatching(ISO), webhook: { id: w.id, isActive: false } });
    expect(expectOk(await t.api.get(`${W(t)}/${w.id}`), 200).isActive).toBe(false);
    const d = await waitForDelivery(t, w.id, String(req.headers['x-svc-delivery']), 'failed');
    expect(d.attempts.map((a: any) => a.statusCode)).toEqual([410]);
    // Later events: the disabled webhook gets nothing (a second webhook shows they were delivered).
    await createWebhook(t, { name: 'ok', url: ok.url(), events: 'ticket.created' });
    await createTicket(t);
    await ok.waitFor((r) => r.length === 1, 'the healthy webhook');
    expect(gone.requests).toHaveLength(1);
  });

  it('Retry-After on 503 (seconds) and 429 (HTTP date) is honoured: the retry never comes earlier', async () => {
    const t = await newTeam(tp);
    let retryAt = 0;
    const r503 = await receiver((_r: Received, n: number) => (n === 1 ? { status: 503, headers: { 'retry-after': '2' } } : { status: 200 }));
    const r429 = await receiver((_r: Received, n: number) => {
      if (n > 1) return { status: 200 };
      retryAt = Math.ceil((Date.now() + 2_000) / 1000) * 1000;
      return { status: 429, headers: { 'retry-after': new Date(retryAt).toUTCString() } };
    });
    await createWebhook(t, { name: '503', url: r503.url(), events: 'ticket.created' });
    await createWebhook(t, { name: '429', url: r429.url(), events: 'ticket.created' });
    await createTicket(t);
    const [a, b] = await Promise.all([r503.waitFor((r) => r.length === 2, '503 retry'), r429.waitFor((r) => r.length === 2, '429 retry')]);
    expect(a[1].at - a[0].at).toBeGreaterThanOrEqual(2_000);
    expect(b[1].at).toBeGreaterThanOrEqual(retryAt);
    expect(b[1].at - b[0].at).toBeGreaterThan(SCHEDULE[0] * 2);
  });

  it('a redirect is not followed: the 3xx is a failed attempt, retried until the delivery fails', async () => {
    const t = await newTeam(tp);
    const rx = await receiver();
    rx.respond = (r) => (r.path === '/old' ? { status: 308, headers: { location: rx.url('/new') } } : { status: 200 });
    const w = await createWebhook(t, { name: 'moved', url: rx.url('/old'), events: 'ticket.created' });
    await createTicket(t);
    const reqs = await rx.waitFor((r) => r.length === SCHEDULE.length + 1, 'every attempt');
    const d = await waitForDelivery(t, w.id, String(reqs[0].headers['x-svc-delivery']), 'failed');
    expect(d.attempts.map((x: any) => [x.statusCode, x.error])).toEqual(Array(4).fill([308, `redirect not followed (308 to ${rx.url('/new')})`]));
    expect(d.nextAttemptAt).toBeNull();
    expect(rx.forPath('/new')).toEqual([]);
  });

  it('an inactive or deleted webhook receives nothing', async () => {
    const t = await newTeam(tp);
    const off = await receiver();
    const gone = await receiver();
    const on = await receiver();
    const inactive = await createWebhook(t, { name: 'off', url: off.url(), events: 'ticket.*' });
    const deleted = await createWebhook(t, { name: 'deleted', url: gone.url(), events: 'ticket.*' });
    await createWebhook(t, { name: 'on', url: on.url(), events: 'ticket.*' });
    expectOk(await t.api.patch(`${W(t)}/${inactive.id}`, { isActive: false }), 200);
    expectOk(await t.api.delete(`${W(t)}/${deleted.id}`), 200);
    const ticket = await createTicket(t);
    expectOk(await t.api.patch(`${t.path}/tickets/${ticket.id}`, { status: 'closed' }), 200);
    await on.waitFor((r) => r.length === 3, 'created, updated and closed');
    expect(on.requests.map((r) => r.headers['x-svc-event']).sort()).toEqual(['ticket.closed', 'ticket.created', 'ticket.updated']);
    expect(off.requests).toEqual([]);
    expect(gone.requests).toEqual([]);
    expect(expectOk(await t.api.get(`${W(t)}/${inactive.id}/deliveries`), 200)).toEqual([]);
  });
});

describe('POST /webhooks/trigger-test', () => {
  it('sends a test event (new evt_ id, test: true) to every active webhook of the team and partition, whatever it subscribes to', async () => {
    const t = await newTeam(tp);
    const a = await receiver();
    const b = await receiver();
    const c = await receiver();
    const d = await receiver();
    const wa = await createWebhook(t, { name: 'a', url: a.url(), events: 'ticket.created' });
    const wb = await createWebhook(t, { name: 'b', url: b.url(), events: 'customer.*' });
    const wc = await createWebhook(t, { name: 'c inactive', url: c.url(), events: 'ticket.closed' });
    expectOk(await t.api.patch(`${W(t)}/${wc.id}`, { isActive: false }), 200);
    await createWebhook(t, { name: 'd live', url: d.url(), events: 'ticket.closed' }, t.live);

    const res = await t.api.post(`${W(t)}/trigger-test`, { event: 'ticket.closed' });
    const data = expectOk(res, 200);
    expect(Object.keys(data).sort()).toEqual(['deliveries', 'event', 'eventId', 'test']);
    expect(data).toMatchObject({ event: 'ticket.closed', test: true });
    expect(data.eventId).toMatch(EVT_ID);
    expect(data.deliveries).toEqual([
      { id: expect.stringMatching(DLV_ID), webhookId: wa.id, url: a.url(), status: 'pending', nextAttemptAt: expect.stringMatching(ISO) },
      { id: expect.stringMatching(DLV_ID), webhookId: wb.id, url: b.url(), status: 'pending', nextAttemptAt: expect.stringMatching(ISO) },
    ]);

    for (const [rx, w, dl] of [[a, wa, data.deliveries[0]], [b, wb, data.deliveries[1]]] as const) {
      const [req] = await rx.waitFor((r) => r.length === 1, 'the test delivery');
      expect(body(req)).toEqual({ id: data.eventId, type: 'ticket.closed', createdAt: expect.stringMatching(ISO), teamId: t.keys.teamId, mode: 'test', test: true, data: {} });
      expect(req.headers).toMatchObject({ 'x-svc-event': 'ticket.closed', 'x-svc-delivery': dl.id, 'x-svc-request-id': res.body.meta.requestId });
      expect(await octokitVerify(w.secret, req.body, String(req.headers['x-svc-signature']))).toBe(true);
      expect(new Webhook(w.secret).verify(req.body, headersOf(req))).toBeTruthy();
      expect(await waitForDelivery(t, w.id, dl.id, 'succeeded')).toMatchObject({ test: true, eventId: data.eventId, eventType: 'ticket.closed' });
    }
    // The live partition's webhook, and the inactive one, got nothing; nothing went on the bus.
    const other = await t.live.post(`${W(t)}/trigger-test`, { event: 'webhook.disabled' });
    await d.waitFor((r) => r.length === 1, 'the live test delivery');
    expect(d.requests).toHaveLength(1);
    expect(body(d.requests[0])).toMatchObject({ type: 'webhook.disabled', mode: 'live', test: true, id: expectOk(other, 200).eventId });
    expect(c.requests).toEqual([]);
    expect(published.filter((e) => e.id === data.eventId)).toEqual([]);
  });

  it('with no active webhook answers an empty list of deliveries', async () => {
    const t = await newTeam(tp);
    const data = expectOk(await t.api.post(`${W(t)}/trigger-test`, { event: 'customer.created' }), 200);
    expect(data).toMatchObject({ event: 'customer.created', test: true, deliveries: [] });
  });

  it.each([
    ['missing event', {}, 'parameter_missing'],
    ['event wrong type', { event: 5 }, 'parameter_invalid'],
    ['event null', { event: null }, 'parameter_invalid'],
    ['unknown event', { event: 'ticket.exploded' }, 'PARAMETER_INVALID'],
    ['a pattern, not an event', { event: 'ticket.*' }, 'PARAMETER_INVALID'],
    ['everything', { event: '*' }, 'PARAMETER_INVALID'],
    ['unknown field', { event: 'ticket.created', webhookId: 'whk_x' }, 'parameter_invalid'],
  ])('refuses %s with 400 and sends nothing', async (_n, reqBody, code) => {
    const t = await newTeam(tp);
    const rx = await receiver();
    const w = await createWebhook(t, { name: 'x', url: rx.url(), events: 'ticket.closed' });
    const res = await t.api.post(`${W(t)}/trigger-test`, reqBody);
    expectError(res, 400, 'invalid_request_error', code, (reqBody as any).webhookId ? 'webhookId' : 'event');
    // A valid trigger afterwards is the only thing the receiver ever sees.
    const ok = expectOk(await t.api.post(`${W(t)}/trigger-test`, { event: 'ticket.closed' }), 200);
    await rx.waitFor((r) => r.length >= 1, 'the valid test delivery');
    expect(rx.requests.map((r) => body(r).id)).toEqual([ok.eventId]);
    expect(expectOk(await t.api.get(`${W(t)}/${w.id}/deliveries`), 200)).toHaveLength(1);
  });

  it('refuses publishable keys, other teams and non-object bodies', async () => {
    const t = await newTeam(tp);
    expectError(await t.api.withKey(t.keys.pk_test).post(`${W(t)}/trigger-test`, { event: 'ticket.created' }), 403, 'authorization_error', 'publishable_key_write', undefined);
    const other = await newTeam(tp);
    expectError(await other.api.post(`${W(t)}/trigger-test`, { event: 'ticket.created' }), 403, 'authorization_error', 'team_access_denied', undefined);
    expectError(await t.api.post(`${W(t)}/trigger-test`, 'ticket.created'), 400, 'invalid_request_error', 'invalid_json', undefined);
    expectError(await t.api.get(`${W(t)}/trigger-test`), 405, 'invalid_request_error', 'method_not_allowed', undefined);
  });
});

describe('the delivery log and redelivery', () => {
  let t: Team;
  let rx: Receiver;
  let w: any;
  let other: any;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    t = await newTeam(tp);
    rx = await receiver((r: Received) => ({ status: body(r).type === 'ticket.updated' ? 500 : 200 }));
    w = await createWebhook(t, { name: 'logged', url: rx.url(), events: 'ticket.*' });
    other = await createWebhook(t, { name: 'other', url: rx.url('/other'), events: 'customer.*' });
    const ticket = await createTicket(t);
    expectOk(await t.api.patch(`${t.path}/tickets/${ticket.id}`, { priority: 'high' }), 200);
    await rx.waitFor((r) => r.filter((x) => body(x).type === 'ticket.updated').length === SCHEDULE.length + 1 && r.some((x) => body(x).type === 'ticket.created'), 'both deliveries');
    for (const r of rx.requests) ids[body(r).type] = String(r.headers['x-svc-delivery']);
    await waitForDelivery(t, w.id, ids['ticket.updated'], 'failed');
    await waitForDelivery(t, w.id, ids['ticket.created'], 'succeeded');
  });

  it('lists deliveries newest first with attempts, and filters on status and eventType', async () => {
    const res = await t.api.get(`${W(t)}/${w.id}/deliveries`);
    const list = expectOk(res, 200);
    expect(list.map((d: any) => d.eventType)).toEqual(['ticket.updated', 'ticket.created']);
    expect(res.body.meta.pagination).toEqual({ page: 1, pageSize: 20, total: 2, totalPages: 1, hasMore: false });
    expect(Object.keys(list[0]).sort()).toEqual(['attemptCount', 'attempts', 'createdAt', 'eventId', 'eventType', 'id', 'nextAttemptAt', 'status', 'test', 'updatedAt', 'webhookId']);
    expect(list[0]).toMatchObject({ id: ids['ticket.updated'], status: 'failed', attemptCount: 4, nextAttemptAt: null, test: false });
    expect(list[0].attempts.map((a: any) => a.statusCode)).toEqual([500, 500, 500, 500]);
    const failed = expectOk(await t.api.get(`${W(t)}/${w.id}/deliveries`, { query: { status: 'failed' } }), 200);
    expect(failed.map((d: any) => d.id)).toEqual([ids['ticket.updated']]);
    const created = expectOk(await t.api.get(`${W(t)}/${w.id}/deliveries`, { query: { eventType: 'ticket.created', pageSize: 1 } }), 200);
    expect(created.map((d: any) => d.id)).toEqual([ids['ticket.created']]);
    const page2 = await t.api.get(`${W(t)}/${w.id}/deliveries`, { query: { pageSize: 1, page: 2 } });
    expect(page2.body.data.map((d: any) => d.id)).toEqual([ids['ticket.created']]);
    expect(page2.body.meta.pagination).toEqual({ page: 2, pageSize: 1, total: 2, totalPages: 2, hasMore: false });
    expect(expectOk(await t.api.get(`${W(t)}/${other.id}/deliveries`), 200)).toEqual([]);
  });

  it('reads one delivery with the exact payload sent; 404 for another webhook, another partition or an unknown id', async () => {
    const d = await readDelivery(t, w.id, ids['ticket.created']);
    const sent = rx.requests.find((r) => r.headers['x-svc-delivery'] === ids['ticket.created'])!;
    expect(d.payload).toEqual(body(sent));
    expectError(await t.api.get(`${W(t)}/${other.id}/deliveries/${ids['ticket.created']}`), 404, 'not_found_error', 'resource_not_found', undefined);
    expectError(await t.live.get(`${W(t)}/${w.id}/deliveries/${ids['ticket.created']}`), 404, 'not_found_error', 'resource_not_found', undefined);
    expectError(await t.live.get(`${W(t)}/${w.id}/deliveries`), 404, 'not_found_error', 'resource_not_found', undefined);
    expectError(await t.api.get(`${W(t)}/${w.id}/deliveries/dlv_000000000000000000000000`), 404, 'not_found_error', 'resource_not_found', undefined);
    expectError(await t.api.get(`${W(t)}/whk_000000000000000000000000/deliveries`), 404, 'not_found_error', 'resource_not_found', undefined);
    expectError(await t.api.get(`${W(t)}/${w.id}/deliveries/nope`), 400, 'invalid_request_error', 'invalid_id_format', 'deliveryId');
  });

  it.each([
    ['an unknown status', { status: 'lost' }, 'status'],
    ['an unknown event type', { eventType: 'ticket.exploded' }, 'eventType'],
    ['pageSize 101', { pageSize: 101 }, 'pageSize'],
    ['pageSize not a number', { pageSize: 'ten' }, 'pageSize'],
    ['page 0', { page: 0 }, 'page'],
    ['an unknown parameter', { webhookId: 'x' }, 'webhookId'],
  ])('the list refuses %s with 400', async (_n, query, param) => {
    expectError(await t.api.get(`${W(t)}/${w.id}/deliveries`, { query }), 400, 'invalid_request_error', 'parameter_invalid', param);
  });

  it('refuses publishable keys and other teams', async () => {
    const pk = t.api.withKey(t.keys.pk_test);
    expectError(await pk.get(`${W(t)}/${w.id}/deliveries`), 403, 'authorization_error', 'publishable_key_forbidden', undefined);
    expectError(await pk.get(`${W(t)}/${w.id}/deliveries/${ids['ticket.created']}`), 403, 'authorization_error', 'publishable_key_forbidden', undefined);
    expectError(await pk.post(`${W(t)}/${w.id}/deliveries/${ids['ticket.created']}/redeliver`), 403, 'authorization_error', 'publishable_key_write', undefined);
    const stranger = await newTeam(tp);
    expectError(await stranger.api.get(`${W(t)}/${w.id}/deliveries`), 403, 'authorization_error', 'team_access_denied', undefined);
    expectError(await stranger.api.get(`${W(t)}/${w.id}/deliveries/${ids['ticket.created']}`), 403, 'authorization_error', 'team_access_denied', undefined);
    expectError(await stranger.api.get(`${stranger.path}/webhooks/${w.id}/deliveries/${ids['ticket.created']}`), 404, 'not_found_error', 'resource_not_found', undefined);
    expectError(await stranger.api.post(`${W(t)}/${w.id}/deliveries/${ids['ticket.created']}/redeliver`), 403, 'authorization_error', 'team_access_denied', undefined);
  });

  it('redelivers: 202, the same delivery id and body sent again now, attempts appended', async () => {
    rx.respond = () => ({ status: 200 });
    const before = rx.forDelivery(ids['ticket.updated']).length;
    const res = await t.api.post(`${W(t)}/${w.id}/deliveries/${ids['ticket.updated']}/redeliver`);
    const d = expectOk(res, 202);
    expect(d).toMatchObject({ id: ids['ticket.updated'], status: 'pending', attemptCount: 4 });
    await rx.waitFor(() => rx.forDelivery(ids['ticket.updated']).length === before + 1, 'the redelivery');
    const sent = rx.forDelivery(ids['ticket.updated']);
    expect(sent[before].body).toBe(sent[0].body);
    expect(Number(sent[before].headers['webhook-timestamp'])).toBeGreaterThanOrEqual(Number(sent[0].headers['webhook-timestamp']));
    const done = await waitForDelivery(t, w.id, ids['ticket.updated'], 'succeeded');
    expect(done.attempts.map((a: any) => [a.attempt, a.statusCode])).toEqual([[1, 500], [2, 500], [3, 500], [4, 500], [5, 200]]);
  });

  it('refuses to redeliver to an inactive webhook (409), an unknown delivery (404), another partition (404), or with a body', async () => {
    expectError(await t.api.post(`${W(t)}/${w.id}/deliveries/dlv_000000000000000000000000/redeliver`), 404, 'not_found_error', 'resource_not_found', undefined);
    expectError(await t.live.post(`${W(t)}/${w.id}/deliveries/${ids['ticket.created']}/redeliver`), 404, 'not_found_error', 'resource_not_found', undefined);
    expectError(await t.api.post(`${W(t)}/${w.id}/deliveries/${ids['ticket.created']}/redeliver`, { now: true }), 400, 'invalid_request_error', 'parameter_invalid', 'now');
    expectOk(await t.api.patch(`${W(t)}/${w.id}`, { isActive: false }), 200);
    const before = rx.requests.length;
    expectError(await t.api.post(`${W(t)}/${w.id}/deliveries/${ids['ticket.created']}/redeliver`), 409, 'conflict_error', 'resource_conflict', undefined);
    // Nothing was queued: the delivery is as it was.
    expect(await readDelivery(t, w.id, ids['ticket.created'])).toMatchObject({ status: 'succeeded', attemptCount: 1, nextAttemptAt: null });
    expect(rx.requests.length).toBe(before);
  });
});
