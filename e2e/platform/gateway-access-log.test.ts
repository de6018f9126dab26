/**
 * The gateway's access log (issue 30 item 4, gateway/src/access-log.ts) and the rule that no log line
 * ever holds a secret: a whole platform runs with every log line captured (every level), the test
 * makes and uses keys and secrets of each kind (API keys, a key made through the API, a wrong key, a
 * webhook's signing secret with a delivery signed by it, the inbound-email secret with a mail posted
 * with it, a stream token in `?token=`, an invitation token, a billing portal link), then looks for
 * each of them in everything that was logged. And the access line's fields.
 */
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import pino from 'pino';
import { Receiver } from '@helpdesk/testing';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { expectOk } from './helpdesk-helpers';
import { inviteLink } from './workspace-helpers';

const captured: string[] = [];
/** Every line any part of the platform logs (the same redaction as kit's createLogger, every level). */
const sink = new Writable({
  write(chunk: Buffer, _enc, done) {
    captured.push(chunk.toString('utf8'));
    done();
  },
});
const logger = pino({ name: 'platform', level: 'trace', base: { service: 'platform' }, redact: ['req.headers.authorization', '*.secret', '*.apiKey'] }, sink);

let tp: TestPlatform;
let receiver: Receiver;
let httpPort: number;
/** Every secret the test made or used. */
const secrets: { what: string; value: string }[] = [];
const remember = (what: string, value: string) => {
  expect(typeof value).toBe('string');
  expect(value.length).toBeGreaterThan(10);
  secrets.push({ what, value });
  return value;
};

// stdout and stderr too: anything printed with console or process.stdout.
const writes = { out: process.stdout.write, err: process.stderr.write };
beforeAll(async () => {
  for (const [name, stream] of [['out', process.stdout], ['err', process.stderr]] as const) {
    stream.write = function (chunk: unknown, ...rest: unknown[]) {
      captured.push(String(chunk));
      return (writes[name] as (...a: unknown[]) => boolean).call(stream, chunk, ...rest);
    } as typeof stream.write;
  }
  receiver = await Receiver.start();
  tp = await startTestPlatform({
    logger,
    webhooks: { allowLoopback: true, pollIntervalMs: 50 },
    inboundEmail: { domain: 'inbound.example.test', maxBytes: 64 * 1024, smtp: { host: '127.0.0.1', port: 0 }, http: { host: '127.0.0.1', port: 0 } },
  });
  httpPort = (await tp.platform.ticketing.rules.inboundEmail.listening!).httpPort!;
}, 60_000);
afterAll(async () => {
  process.stdout.write = writes.out;
  process.stderr.write = writes.err;
  await tp?.stop();
  await receiver?.close();
}, 60_000);

/** The access lines (parsed) of one request id. */
const accessLines = (requestId: string) =>
  captured
    .flatMap((chunk) => chunk.split('\n'))
    .filter((l) => l.includes(requestId) && l.includes('"msg":"request"'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);

async function eventually<T>(what: string, read: () => T | undefined | null | false, ms = 10_000): Promise<T> {
  for (const deadline = Date.now() + ms; Date.now() < deadline; await new Promise((r) => setTimeout(r, 20))) {
    const v = read();
    if (v) return v;
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('access log', () => {
  it('one line per request with request id, team, key id and prefix, operation, method, status, duration and bytes', async () => {
    const res = await tp.api.get(`${tp.teamPath}/tickets?pageSize=1`);
    expect(res.status).toBe(200);
    const requestId = res.body.meta.requestId as string;
    const [line, ...more] = await eventually('the access line', () => accessLines(requestId).length > 0 && accessLines(requestId));
    expect(more.map((l) => JSON.stringify(l))).toEqual([]);
    const whoami = expectOk(await tp.api.get('/auth/whoami'), 200);
    expect(line).toMatchObject({
      level: 30,
      msg: 'request',
      requestId,
      method: 'GET',
      operation: 'listTickets',
      root: null,
      teamId: tp.team.teamId,
      keyId: whoami.keyId,
      keyPrefix: tp.team.sk_test.slice(0, 12),
      status: 200,
      bytes: Number(res.headers.get('content-length')),
      code: null,
    });
    expect(typeof line.durationMs).toBe('number');
    expect(line.durationMs as number).toBeGreaterThanOrEqual(0);
    // no URL, query, header or body
    for (const field of ['url', 'path', 'query', 'headers', 'body', 'req', 'res']) expect(line).not.toHaveProperty(field);
  });

  it('a refusal is logged with its code; a page outside /api/v1 with its root, never its path', async () => {
    const wrong = remember('a wrong key', `sk_test_${randomBytes(30).toString('base64url').replace(/[-_]/g, 'x').slice(0, 40)}`);
    const refused = await tp.api.get('/auth/whoami', { key: wrong });
    expect(refused.status).toBe(401);
    const [line] = await eventually('the 401 line', () => accessLines(refused.body.error.request_id).length > 0 && accessLines(refused.body.error.request_id));
    expect(line).toMatchObject({ status: 401, code: 'invalid_api_key', operation: 'whoami', teamId: null, keyId: null, keyPrefix: null });

    const page = await fetch(`${tp.baseUrl.replace('/api/v1', '')}/help/no-such-team-${randomBytes(3).toString('hex')}`);
    expect(page.status).toBe(404);
    const id = page.headers.get('x-svc-request-id')!;
    const [pageLine] = await eventually('the page line', () => accessLines(id).length > 0 && accessLines(id));
    expect(pageLine).toMatchObject({ status: 404, operation: null, root: '/help', method: 'GET' });
    expect(JSON.stringify(pageLine)).not.toContain('no-such-team');
  });
});

describe('no secret in any log line', () => {
  it('keys and secrets of every kind, made and used, appear in no log line', async () => {
    const { team, otherTeam } = tp;
    for (const t of [team, otherTeam]) for (const k of ['sk_test', 'pk_test', 'sk_live', 'pk_live'] as const) remember(`${k} of ${t.teamId}`, t[k]);
    const api = tp.api;
    const path = tp.teamPath;
    // each key used once (publishable ones as a browser would)
    for (const k of ['sk_test', 'sk_live', 'pk_test', 'pk_live'] as const) {
      expect((await api.get('/auth/whoami', { key: team[k], headers: { origin: 'https://shop.example' } })).status).toBe(200);
    }

    // an API key made through the API, used, revoked, refused
    const made = expectOk(await api.post(`${path}/api-keys`, { type: 'secret', mode: 'test', name: 'ci' }), 201);
    remember('a key made through the API', made.key);
    expect((await api.get('/auth/whoami', { key: made.key })).status).toBe(200);
    expect((await api.delete(`${path}/api-keys/${made.id}`)).status).toBeLessThan(300);
    expect((await api.get('/auth/whoami', { key: made.key })).status).toBe(401);

    // a webhook's signing secret, and a delivery signed with it
    const hook = expectOk(await api.post(`${path}/webhooks`, { name: 'ci', url: receiver.url(), events: ['ticket.created'] }), 201);
    remember('a webhook secret', hook.secret);
    expectOk(await api.post(`${path}/tickets`, { title: 'Printer on fire' }), 201);
    await eventually('the signed delivery', () => receiver.requests.length > 0, 15_000);

    // the inbound-email secret, and a mail posted with it (and with a wrong one)
    const inbound = expectOk(await api.post(`${path}/inbound-email/secret`), 201);
    const inboundSecret = remember('the inbound-email secret', inbound.secret);
    const mail = ['From: Pat <pat@customer.example>', 'To: support@acme.example', 'Subject: Help', `Message-ID: <${randomBytes(6).toString('hex')}@p.example>`, 'Content-Type: text/plain', '', 'Hello', ''].join('\r\n');
    for (const auth of [inboundSecret, `${inboundSecret.slice(0, -4)}abcd`]) {
      const posted = await fetch(`http://127.0.0.1:${httpPort}/inbound-email/${team.teamId}/messages`, { method: 'POST', headers: { 'content-type': 'message/rfc822', authorization: `Bearer ${auth}` }, body: mail });
      await posted.arrayBuffer();
      expect([202, 201, 200, 401]).toContain(posted.status);
    }

    // a stream token, used in ?token=
    const token = expectOk(await api.post(`${path}/events/stream-tokens`, {}), 201).token as string;
    remember('a stream token', token);
    const abort = new AbortController();
    const stream = await fetch(`${tp.baseUrl}${path}/events/stream?token=${token}`, { headers: { accept: 'text/event-stream', origin: 'https://shop.example' }, signal: abort.signal });
    expect(stream.status).toBe(200);
    abort.abort();

    // an invitation token, accepted (its first key too)
    const invite = expectOk(await api.post(`${path}/invites`, { email: `pat-${randomBytes(3).toString('hex')}@example.com` }), 201);
    const { token: inviteToken } = await inviteLink(tp, team.teamId, invite.id);
    remember('an invitation token', inviteToken);
    const accepted = expectOk(await api.withKey(null).post('/invites/accept', { token: inviteToken, name: 'Pat' }), 201);
    remember("the invited member's first key", accepted.apiKey.key);
    expect((await api.get('/auth/whoami', { key: accepted.apiKey.key })).status).toBe(200);

    // a billing portal link (its session is the credential), opened
    const portal = expectOk(await api.post(`${path}/billing/portal`, { returnUrl: 'https://app.example/settings' }), 200);
    const session = /bps_[A-Za-z0-9_-]{43}/.exec(portal.url)![0];
    remember('a billing portal session', session);
    const page = await fetch(new URL(new URL(portal.url).pathname, tp.baseUrl));
    await page.text();
    expect(page.status).toBe(200);

    // every request above logged, then nothing of any secret anywhere (the whole key and its secret body part)
    await new Promise((r) => setTimeout(r, 200));
    const everything = captured.join('');
    expect(everything).toContain('"msg":"request"');
    const found = secrets.filter(({ value }) => everything.includes(value) || everything.includes(value.slice(-24)));
    expect(found.map((s) => s.what)).toEqual([]);
  }, 60_000);
});
