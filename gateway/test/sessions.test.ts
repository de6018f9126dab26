import type { Server } from 'node:http';
import type { Express } from 'express';
import { closeServer, createServiceApp, listen } from '@helpdesk/kit';
import { ROLE_PERMISSIONS, type InternalClaims, type SessionAccess, type Partition } from '@helpdesk/contracts';
import { runCli, type CliIo } from '../src/cli';
import { requestProtocolOf } from '../src/client-address';
import { startGateway, type RunningGateway } from '../src/index';
import { hashKey } from '../src/keys';
import { sessionCookieOf } from '../src/sessions/cookie';
import { newCsrfToken, validCsrfToken } from '../src/sessions/csrf';
import { logger, startBackend, startMongo, tokens, type Embedded } from './helpers';

/**
 * The gateway's side of console sessions (docs/adr/0068) against a stand-in workspace built on kit's
 * service app (the gateway's internal tokens are really verified): what the platform suite cannot
 * set up — a TLS-terminating proxy, a session revoked on another gateway (the look-up cache), the
 * workspace down, the per-client limit — and the CSRF token and cookie parsing themselves.
 */
const OWNER = 'mem_owner0000000000000000000';
/** Sessions by their token's hash, as the workspace keeps them; `down` makes every look-up 503. */
const sessions = new Map<string, SessionAccess>();
const links = new Map<string, string>();
let down = false;
const lookUps: InternalClaims[] = [];
const ok = (res: any, status: number, data: unknown) => res.status(status).json({ success: true, data, meta: { requestId: 'req_x', timestamp: new Date().toISOString() } });

function access(id: string, mode: Partition = 'test'): SessionAccess {
  const now = Date.now();
  return {
    session: {
      id, memberId: OWNER, mode, userAgent: null, createdAt: new Date(now).toISOString(), lastUsedAt: new Date(now).toISOString(),
      idleExpiresAt: new Date(now + 86_400_000).toISOString(), expiresAt: new Date(now + 7 * 86_400_000).toISOString(), endedAt: null, endReason: null,
    },
    member: { id: OWNER, name: 'Olga', email: 'olga@example.com', role: 'owner', permissions: [...ROLE_PERMISSIONS.owner] },
    team: { name: 'Session Co', slug: 'session-co', subscriptionStatus: 'active' },
  };
}

function startWorkspaceStandIn(): Promise<Server> {
  const routes = (app: Express) => {
    app.get('/internal/access', (req, res) => ok(res, 200, { team: null, member: req.query.memberId ? { id: OWNER, role: 'owner', permissions: [...ROLE_PERMISSIONS.owner] } : null }));
    app.post('/internal/owner', (req, res) =>
      ok(res, 201, {
        id: OWNER, userId: '00000000-0000-4000-8000-000000000000', name: req.body.name, email: req.body.email, avatarUrl: null, role: 'owner',
        roleDisplayName: 'Guild Master', permissions: [...ROLE_PERMISSIONS.owner], level: 1, xp: 0, joinedAt: new Date().toISOString(),
      }),
    );
    app.post('/internal/sessions/access', (req, res) => {
      lookUps.push(res.locals.ctx as InternalClaims);
      if (down) return void res.status(503).json({ success: false, error: { code: 'service_unavailable' } });
      const found = sessions.get(req.body.tokenHash);
      if (!found) return void res.status(404).json({ success: false, error: { code: 'resource_not_found' } });
      ok(res, 200, found);
    });
    app.post('/internal/sessions', (req, res) => {
      const id = links.get(req.body.linkTokenHash);
      if (!id) return void res.status(400).json({ success: false, error: { type: 'invalid_request_error', code: 'sign_in_link_invalid', message: 'No.', param: 'token' } });
      links.delete(req.body.linkTokenHash);
      const made = access(id, req.body.mode);
      sessions.set(req.body.sessionTokenHash, made);
      ok(res, 201, made);
    });
    app.post('/internal/sign-in-links', (_req, res) => ok(res, 200, { count: 0 }));
    app.post('/internal/sign-in-links/operator', (req, res) => {
      if (req.body.email === 'nobody@example.com') return void res.status(404).json({ success: false, error: { code: 'resource_not_found' } });
      const teamHex = (res.locals.ctx as InternalClaims).teamId.replace(/-/g, '');
      const token = `hdsil_${teamHex}_${'L'.repeat(40)}`;
      ok(res, 201, { url: `https://helpdesk.example.com/app/sign-in?token=${token}`, token, expiresAt: new Date(Date.now() + 900_000).toISOString(), memberId: OWNER });
    });
  };
  return listen(createServiceApp({ name: 'workspace', logger, tokens, routes }), 0, '127.0.0.1');
}

let mongo: Embedded;
let workspace: Server;
let backend: Awaited<ReturnType<typeof startBackend>>;
let gw: RunningGateway;
let proxied: RunningGateway;
let teamId: string;
const dbName = `gw_sessions_${Date.now()}`;

beforeAll(async () => {
  mongo = await startMongo();
  workspace = await startWorkspaceStandIn();
  backend = await startBackend();
  const services = { ticketing: backend.url, workspace: `http://127.0.0.1:${(workspace.address() as { port: number }).port}` };
  const common = { port: 0, mongoUrl: mongo.uri(), dbName, tokens, logger, services };
  gw = await startGateway({ ...common, sessionCacheTtlMs: 300 });
  // A second gateway of the same deployment, behind a TLS-terminating proxy on loopback.
  proxied = await startGateway({ ...common, trustedProxies: ['127.0.0.1'] });
  teamId = (await gw.admin.createTeam({ name: 'Session Co', owner: { name: 'Olga', email: 'olga@example.com' } })).id;
});
afterAll(async () => {
  await gw?.stop();
  await proxied?.stop();
  await backend?.stop();
  if (workspace) await closeServer(workspace);
  await mongo?.close();
});
beforeEach(() => {
  down = false;
});

/** A session the stand-in knows, and its cookie; signed in through `gateway` with `headers`. */
async function signIn(gateway = gw, headers: Record<string, string> = {}) {
  const linkToken = `hdsil_${teamId.replace(/-/g, '')}_${Math.random().toString(36).slice(2).padEnd(40, 'a').slice(0, 40)}`;
  links.set(hashKey(linkToken), `ses_${Math.random().toString(36).slice(2).padEnd(24, 'b').slice(0, 24)}`);
  const res = await fetch(`${gateway.url}/auth/sessions`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ token: linkToken }) });
  const body = (await res.json()) as any;
  return { res, body, cookie: (res.headers.get('set-cookie') ?? '').split(';')[0], csrf: body.data?.csrfToken as string };
}
const get = (url: string, headers: Record<string, string>) => fetch(url, { headers });
const codeOf = async (res: Response) => ((await res.json()) as any).error?.code;

describe('behind a TLS-terminating proxy (TRUSTED_PROXIES)', () => {
  it("the cookie is Secure when the trusted proxy says https, and writes need the https Origin", async () => {
    const origin = new URL(proxied.url).origin.replace('http:', 'https:');
    const s = await signIn(proxied, { 'x-forwarded-proto': 'https', 'x-forwarded-for': '203.0.113.9', origin });
    expect(s.res.status).toBe(201);
    expect(s.res.headers.get('set-cookie')).toMatch(/; HttpOnly; SameSite=Strict; Secure$/);
    const post = (extra: Record<string, string>) =>
      fetch(`${proxied.url}/teams/${teamId}/tickets`, { method: 'POST', headers: { cookie: s.cookie, 'x-csrf-token': s.csrf, 'content-type': 'application/json', ...extra }, body: '{}' });
    expect((await post({ 'x-forwarded-proto': 'https', origin })).status).toBe(201);
    // the http origin of the same host is another origin
    const plain = await post({ 'x-forwarded-proto': 'https', origin: new URL(proxied.url).origin });
    expect([plain.status, await codeOf(plain)]).toEqual([403, 'origin_not_allowed']);
  });

  it('an untrusted peer cannot claim https: no Secure cookie, and its https Origin is not the platform\'s', async () => {
    const origin = new URL(gw.url).origin.replace('http:', 'https:');
    const refused = await signIn(gw, { 'x-forwarded-proto': 'https', origin });
    expect([refused.res.status, refused.body.error.code]).toEqual([403, 'origin_not_allowed']);
    const s = await signIn(gw, { 'x-forwarded-proto': 'https' });
    expect(s.res.headers.get('set-cookie')).not.toMatch(/Secure/);
  });

  it('requestProtocolOf believes X-Forwarded-Proto only from a trusted peer, its first value', () => {
    const req = (remoteAddress: string, proto?: string, encrypted = false) => ({ socket: { remoteAddress, encrypted }, headers: proto ? { 'x-forwarded-proto': proto } : {} }) as never;
    const trusting = requestProtocolOf(['10.0.0.0/8']);
    expect(trusting(req('10.1.2.3', 'https'))).toBe('https');
    expect(trusting(req('10.1.2.3', 'HTTPS, http'))).toBe('https');
    expect(trusting(req('10.1.2.3', 'gopher'))).toBe('http');
    expect(trusting(req('192.0.2.1', 'https'))).toBe('http');
    expect(requestProtocolOf()(req('10.1.2.3', 'https'))).toBe('http');
    expect(requestProtocolOf()(req('10.1.2.3', undefined, true))).toBe('https');
  });
});

describe('the look-up', () => {
  it('is kept a moment: a session ended on another gateway is refused once the cache lapses', async () => {
    const s = await signIn();
    const url = `${gw.url}/teams/${teamId}/tickets`;
    expect((await get(url, { cookie: s.cookie })).status).toBe(200);
    // ended elsewhere: the workspace no longer answers it
    for (const [hash, a] of sessions) if (a.session.id === s.body.data.id) sessions.delete(hash);
    const deadline = Date.now() + 5_000;
    let status = 200;
    while (status === 200 && Date.now() < deadline) {
      status = (await get(url, { cookie: s.cookie })).status;
      if (status === 200) await new Promise((r) => setTimeout(r, 50));
    }
    expect(status).toBe(401);
    expect(await codeOf(await get(url, { cookie: s.cookie }))).toBe('session_invalid');
  });

  it('asks the workspace with a token for the cookie\'s team, and refuses (503) when the workspace cannot answer', async () => {
    const s = await signIn();
    // the sign-in primed this gateway's cache: a gateway that never saw the session has to ask
    const fresh = await startGateway({ port: 0, mongoUrl: mongo.uri(), dbName, tokens, logger, services: { ticketing: backend.url, workspace: `http://127.0.0.1:${(workspace.address() as { port: number }).port}` } });
    try {
      const asked = lookUps.length;
      expect((await get(`${fresh.url}/auth/session`, { cookie: s.cookie })).status).toBe(200);
      expect(lookUps.slice(asked)).toEqual([expect.objectContaining({ teamId, keyType: 'internal', memberId: null, permissions: [] })]);
      down = true;
      const other = await signIn();
      const refused = await get(`${fresh.url}/auth/session`, { cookie: other.cookie });
      expect([refused.status, await codeOf(refused)]).toEqual([503, 'service_unavailable']);
    } finally {
      await fresh.stop();
    }
  });

  it('a cookie that is no session token is refused without asking anyone', async () => {
    const asked = lookUps.length;
    for (const cookie of ['helpdesk_session=', 'helpdesk_session=sk_test_abc', `helpdesk_session=hdses_${'0'.repeat(32)}_short`]) {
      const res = await get(`${gw.url}/auth/session`, { cookie });
      expect([res.status, await codeOf(res)]).toEqual([401, 'session_invalid']);
    }
    expect(lookUps.length).toBe(asked);
  });
});

describe('sign-in links', () => {
  it('are limited per client address: the 21st request in 15 minutes is 429, whatever the address asked for', async () => {
    const ask = (i: number) =>
      fetch(`${proxied.url}/auth/sign-in-links`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-for': '198.51.100.7' }, body: JSON.stringify({ email: `p${i}@example.com` }) });
    for (let i = 0; i < 20; i++) expect((await ask(i)).status).toBe(202);
    const refused = await ask(20);
    expect([refused.status, await codeOf(refused)]).toEqual([429, 'rate_limit_exceeded']);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    // another client is not counted with it
    const other = await fetch(`${proxied.url}/auth/sign-in-links`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-for': '198.51.100.8' }, body: JSON.stringify({ email: 'p0@example.com' }) });
    expect(other.status).toBe(202);
  });

  it('the operator CLI prints one (`sign-in-link`), and says so when there is no such member or no workspace', async () => {
    const out: string[] = [];
    const err: string[] = [];
    const io: CliIo = { out: (l) => out.push(l), err: (l) => err.push(l), env: {}, cwd: process.cwd(), admin: gw.admin };
    expect(await runCli(['sign-in-link', '--team', teamId], io)).toBe(0);
    expect(out.join('\n')).toContain(`https://helpdesk.example.com/app/sign-in?token=hdsil_${teamId.replace(/-/g, '')}_`);
    expect(await runCli(['sign-in-link', '--team', teamId, '--email', 'nobody@example.com'], io)).toBe(1);
    expect(err.join('\n')).toContain(`no member with email nobody@example.com in team ${teamId}`);
    const bare: CliIo = { out: () => undefined, err: (l) => err.push(l), env: { MONGO_URL: mongo.uri() }, cwd: process.cwd() };
    expect(await runCli(['sign-in-link', '--team', teamId], bare)).toBe(2);
    expect(err.join('\n')).toContain('sign-in-link: the workspace service keeps sign-in links');
  });
});

describe('the CSRF token and the cookie', () => {
  it('a CSRF token is the session\'s own: any fresh one works, a changed or another session\'s does not', () => {
    const token = `hdses_${'a'.repeat(32)}_${'B'.repeat(43)}`;
    const [one, two] = [newCsrfToken(token), newCsrfToken(token)];
    expect(one).not.toBe(two);
    expect(validCsrfToken(token, one)).toBe(true);
    expect(validCsrfToken(token, two)).toBe(true);
    expect(validCsrfToken(`${token.slice(0, -1)}C`, one)).toBe(false);
    const [nonce, mac] = one.split('.');
    expect(validCsrfToken(token, `${nonce}x.${mac}`)).toBe(false);
    expect(validCsrfToken(token, `${nonce}.${mac.slice(0, -1)}`)).toBe(false);
    expect(validCsrfToken(token, undefined)).toBe(false);
    expect(validCsrfToken(token, [one])).toBe(false);
    expect(validCsrfToken(token, `.${mac}`)).toBe(false);
    expect(validCsrfToken(token, 'x'.repeat(500))).toBe(false);
  });

  it('the cookie is read among others, the first of its name', () => {
    const req = (cookie?: string) => ({ headers: cookie === undefined ? {} : { cookie } }) as never;
    expect(sessionCookieOf(req())).toBeNull();
    expect(sessionCookieOf(req('a=1; helpdesk_session=hdses_x; b=2'))).toBe('hdses_x');
    expect(sessionCookieOf(req('helpdesk_session="quoted"'))).toBe('quoted');
    expect(sessionCookieOf(req('helpdesk_session=first; helpdesk_session=second'))).toBe('first');
    expect(sessionCookieOf(req('xhelpdesk_session=no'))).toBeNull();
  });
});
