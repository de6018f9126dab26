/**
 * Sign-in for people and the console's session cookie, through the whole platform (issue 35 item 1,
 * docs/adr/0068): a mailed one-time link, its exchange for an HttpOnly cookie, the cookie as the
 * member's secret key, CSRF and Origin on writes, listing and revoking, a session ending with the
 * member's access, the audit log naming member and session, and API keys exactly as before. The two
 * browser scenarios that are about sessions rather than pages, "a session revoked mid-use" and "a
 * cross-site request refused", are here at the HTTP level (the console's Chromium tests add the UI).
 */
import { createHash, randomBytes } from 'node:crypto';
import type { EventEnvelope, Partition } from '@helpdesk/contracts';
import { startTestPlatform, type TeamKeys, type TestPlatform } from '../support/platform';
import { asSession, mailedSignInLink, operatorSignInLink, originOf, sessionHeaders, signIn, signInRaw, type BrowserSession } from '../support/sessions';
import { eventually, expectError, expectOk, ISO } from './helpdesk-helpers';
import { streamPath, StreamClient } from './stream-helpers';
import { addMember, WorkspaceEvents, type TestMember } from './workspace-helpers';

let tp: TestPlatform;
let log: WorkspaceEvents;
let team: TeamKeys;
let owner: { id: string; email: string };
let agent: TestMember;
let spectator: TestMember;
const sessionEvents: EventEnvelope<any>[] = [];
const anon = () => tp.api.withKey(null);
const teamPath = () => `/teams/${team.teamId}`;
const links = () => tp.platform.workspace.conn.collection('sign_in_links');
const ticketCount = async () => expectOk(await tp.api.get(`${teamPath()}/tickets`, { key: team.sk_test }), 200).length;
const newTicket = (title = `t ${randomBytes(3).toString('hex')}`) => ({ title, customerEmail: undefined, priority: 'normal' });

/** A session of `email`'s member (an operator's link: no mail, no link-request budget spent). */
async function sessionOf(email: string, mode: Partition = 'test'): Promise<BrowserSession> {
  return signIn(tp, (await operatorSignInLink(tp, team.teamId, email)).token, mode);
}

beforeAll(async () => {
  tp = await startTestPlatform();
  log = await WorkspaceEvents.start(tp);
  await tp.observe('workspace', ['session.#', 'sign_in_link.#'], async (e) => {
    sessionEvents.push(e as EventEnvelope<any>);
  });
  team = await tp.createTeam('Console Co');
  const [o] = expectOk(await tp.api.get(`${teamPath()}/members`, { key: team.sk_test, query: { role: 'owner' } }), 200);
  owner = { id: o.id, email: o.email };
  agent = await addMember(tp, log, team, 'agent');
  spectator = await addMember(tp, log, team, 'spectator');
}, 60_000);
afterAll(async () => {
  await tp?.stop();
}, 60_000);

describe('a sign-in link by mail', () => {
  it('a member and a stranger get the same 202; only the member gets a mail, with a link that signs in once', async () => {
    const seen = new Set<string>();
    const storedBefore = await links().countDocuments();
    const stranger = await anon().post('/auth/sign-in-links', { email: `stranger-${randomBytes(3).toString('hex')}@example.com` }, { headers: { origin: originOf(tp) } });
    const member = await anon().post('/auth/sign-in-links', { email: agent.email.toUpperCase() }, { headers: { origin: originOf(tp) } });
    const a = expectOk(stranger, 202);
    const b = expectOk(member, 202);
    expect(Object.keys(a).sort()).toEqual(['email', 'expiresInSeconds', 'object']);
    expect({ ...a, email: null }).toEqual({ ...b, email: null });
    expect(b).toEqual({ object: 'sign_in_link_request', email: agent.email.toUpperCase(), expiresInSeconds: 900 });
    // nothing stored for the stranger: one link, the member's
    expect(await links().countDocuments()).toBe(storedBefore + 1);
    const mail = await mailedSignInLink(tp, agent.email, seen);
    expect(mail.subject).toBe('Sign in to Console Co');
    expect(mail.url).toBe(`http://127.0.0.1:8080/app/sign-in?token=${mail.token}`);
    const requested = await eventually('sign_in_link.requested', () => sessionEvents.find((e) => e.type === 'sign_in_link.requested' && e.requestId === member.body.meta.requestId));
    expect(requested.data.signInLink).toMatchObject({ memberId: agent.id, delivery: 'mail' });
    expect(JSON.stringify(sessionEvents)).not.toContain(mail.token);
    const s = await signIn(tp, mail.token);
    expect(s.session.member).toEqual({ id: agent.id, name: 'Member agent', email: agent.email, role: 'agent' });
    expectError(await signInRaw(tp, mail.token), 409, 'conflict_error', 'sign_in_link_used', 'token');
  });

  it('is limited per address: the sixth request in 15 minutes is 429 with Retry-After, for members and strangers alike', async () => {
    for (const email of [`limited-${randomBytes(3).toString('hex')}@example.com`, spectator.email]) {
      for (let i = 0; i < 5; i++) expectOk(await anon().post('/auth/sign-in-links', { email }), 202);
      const refused = await anon().post('/auth/sign-in-links', { email: email.toUpperCase() });
      expectError(refused, 429, 'rate_limit_error', 'rate_limit_exceeded');
      const retryAfter = Number(refused.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThan(800);
      expect(retryAfter).toBeLessThanOrEqual(900);
      expect(refused.body.error.retryAfter).toBe(retryAfter);
    }
  });

  it('refuses bad bodies (400) and another site\'s page (403); nothing is stored', async () => {
    const before = await links().countDocuments();
    expectError(await anon().post('/auth/sign-in-links', {}), 400, 'invalid_request_error', 'parameter_missing', 'email');
    expectError(await anon().post('/auth/sign-in-links', { email: 'not-an-email' }), 400, 'invalid_request_error', 'parameter_invalid', 'email');
    expectError(await anon().post('/auth/sign-in-links', { email: agent.email, role: 'owner' }), 400, 'invalid_request_error', 'parameter_invalid', 'role');
    expectError(await anon().post('/auth/sign-in-links', { email: agent.email, teamId: 'nope' }), 400, 'invalid_request_error', 'parameter_invalid', 'teamId');
    expectError(await anon().post('/auth/sign-in-links', { email: agent.email }, { headers: { origin: 'https://evil.example' } }), 403, 'authorization_error', 'origin_not_allowed');
    expect(await links().countDocuments()).toBe(before);
  });
});

describe('signing in', () => {
  it('answers 201 with the session and an HttpOnly, SameSite=Strict cookie on the API path (not Secure over http)', async () => {
    const link = await operatorSignInLink(tp, team.teamId, agent.email);
    const res = await signInRaw(tp, link.token, { mode: 'live' }, { 'user-agent': 'Console test browser' });
    const s = expectOk(res, 201);
    expect(s).toEqual({
      object: 'session', id: expect.stringMatching(/^ses_[A-Za-z0-9]{24}$/), memberId: agent.id, mode: 'live', userAgent: 'Console test browser',
      createdAt: expect.stringMatching(ISO), lastUsedAt: expect.stringMatching(ISO), idleExpiresAt: expect.stringMatching(ISO), expiresAt: expect.stringMatching(ISO),
      current: true, teamId: team.teamId, permissions: expect.arrayContaining(['view_tickets', 'manage_tickets']), csrfToken: expect.any(String),
      member: { id: agent.id, name: 'Member agent', email: agent.email, role: 'agent' }, team: { id: team.teamId, name: 'Console Co', slug: expect.any(String) },
    });
    expect(Date.parse(s.expiresAt) - Date.parse(s.createdAt)).toBe(7 * 24 * 3600_000);
    expect(Date.parse(s.idleExpiresAt) - Date.parse(s.createdAt)).toBe(24 * 3600_000);
    const cookie = res.headers.get('set-cookie')!;
    expect(cookie).toMatch(/^helpdesk_session=hdses_[0-9a-f]{32}_[A-Za-z0-9]{43}; Path=\/api\/v1; Max-Age=60479\d; HttpOnly; SameSite=Strict$/);
    const created = await eventually('session.created', () => sessionEvents.find((e) => e.type === 'session.created' && e.data.session.id === s.id));
    expect(created).toMatchObject({ requestId: res.body.meta.requestId, mode: 'live', actor: { type: 'member', id: agent.id, sessionId: s.id } });
    expect(JSON.stringify(created)).not.toContain(cookie.slice('helpdesk_session='.length, cookie.indexOf(';')));
  });

  it('a reused, expired, forged or other team\'s token is refused (no cookie, no session)', async () => {
    const used = await operatorSignInLink(tp, team.teamId, agent.email);
    await signIn(tp, used.token);
    const expired = await operatorSignInLink(tp, team.teamId, agent.email);
    const moved = await links().updateOne({ tokenHash: createHash('sha256').update(expired.token).digest('hex') } as never, { $set: { expiresAt: new Date(Date.now() - 1000) } });
    expect(moved.modifiedCount).toBe(1);
    const sessionsBefore = await tp.platform.workspace.conn.collection('sessions').countDocuments();
    const refusals: [string, number, string, string][] = [
      [used.token, 409, 'conflict_error', 'sign_in_link_used'],
      [expired.token, 410, 'invalid_request_error', 'sign_in_link_expired'],
      [`hdsil_${team.teamId.replace(/-/g, '')}_${'A'.repeat(40)}`, 400, 'invalid_request_error', 'sign_in_link_invalid'],
      [`hdsil_${tp.otherTeam.teamId.replace(/-/g, '')}_${used.token.slice(-40)}`, 400, 'invalid_request_error', 'sign_in_link_invalid'],
      ['not-a-token', 400, 'invalid_request_error', 'sign_in_link_invalid'],
    ];
    for (const [token, status, type, code] of refusals) {
      const res = await signInRaw(tp, token);
      expectError(res, status, type, code, 'token');
      expect(res.headers.get('set-cookie')).toBeNull();
    }
    expectError(await anon().post('/auth/sessions', {}, { headers: { origin: originOf(tp) } }), 400, 'invalid_request_error', 'parameter_missing', 'token');
    expectError(await signInRaw(tp, used.token, { mode: 'staging' }), 400, 'invalid_request_error', 'parameter_invalid', 'mode');
    expectError(await signInRaw(tp, used.token, {}, { origin: 'https://evil.example' }), 403, 'authorization_error', 'origin_not_allowed');
    expect(await tp.platform.workspace.conn.collection('sessions').countDocuments()).toBe(sessionsBefore);
  });
});

describe('the cookie as the member\'s key', () => {
  it("reads with the member's role in the session's partition; another team's URL is refused like a key's", async () => {
    const s = await sessionOf(agent.email, 'test');
    const me = expectOk(await asSession(tp, s, 'GET', '/auth/whoami'), 200);
    expect(me).toMatchObject({ teamId: team.teamId, keyId: s.session.id, keyType: 'session', environment: 'test', memberId: agent.id });
    const made = expectOk(await tp.api.post(`${teamPath()}/tickets`, newTicket('seen by the test session'), { key: team.sk_test }), 201);
    const listed = expectOk(await asSession(tp, s, 'GET', `${teamPath()}/tickets`), 200);
    expect(listed.map((t: any) => t.id)).toContain(made.id);
    expectError(await asSession(tp, s, 'GET', `/teams/${tp.otherTeam.teamId}/tickets`), 403, 'authorization_error', 'team_access_denied');
    // the live partition does not see the test ticket; switching back does
    const live = expectOk(await asSession(tp, s, 'PATCH', '/auth/session', { mode: 'live' }), 200);
    expect(live.mode).toBe('live');
    expect(expectOk(await asSession(tp, s, 'GET', `${teamPath()}/tickets`), 200).map((t: any) => t.id)).not.toContain(made.id);
    expectOk(await asSession(tp, s, 'PATCH', '/auth/session', { mode: 'test' }), 200);
    const current = expectOk(await asSession(tp, s, 'GET', '/auth/session'), 200);
    expect(current).toMatchObject({ id: s.session.id, mode: 'test', current: true });
    expect(current.csrfToken).not.toBe(s.csrfToken);
  });

  it("a role without the permission gets 403 and nothing is written", async () => {
    const s = await sessionOf(spectator.email);
    const before = await ticketCount();
    expectError(await asSession(tp, s, 'POST', `${teamPath()}/tickets`, newTicket()), 403, 'authorization_error', 'insufficient_permissions');
    expect(await ticketCount()).toBe(before);
  });

  it('the session endpoints take the cookie only: an API key is 403, nothing at all 401, an ended session 401 session_invalid', async () => {
    expectError(await tp.api.get('/auth/session', { key: team.sk_test }), 403, 'authorization_error', 'insufficient_permissions');
    expectError(await anon().get('/auth/session'), 401, 'authentication_error', 'authentication_required');
    expectError(await anon().get('/auth/session', { headers: { cookie: 'helpdesk_session=forged' } }), 401, 'authentication_error', 'session_invalid');
    expectError(await anon().get('/auth/session', { headers: { cookie: `helpdesk_session=hdses_${team.teamId.replace(/-/g, '')}_${'x'.repeat(43)}` } }), 401, 'authentication_error', 'session_invalid');
  });
});

describe('CSRF and Origin on writes', () => {
  it('a write without the CSRF token, with a wrong one, without Origin or from another origin is 403 and writes nothing', async () => {
    const s = await sessionOf(agent.email);
    const other = await sessionOf(agent.email);
    const before = await ticketCount();
    const post = (overrides: Record<string, string | null>) => asSession(tp, s, 'POST', `${teamPath()}/tickets`, newTicket(), overrides);
    expectError(await post({ 'x-csrf-token': null }), 403, 'authorization_error', 'csrf_token_invalid');
    expectError(await post({ 'x-csrf-token': other.csrfToken }), 403, 'authorization_error', 'csrf_token_invalid');
    expectError(await post({ 'x-csrf-token': `${s.csrfToken}x` }), 403, 'authorization_error', 'csrf_token_invalid');
    expectError(await post({ origin: null }), 403, 'authorization_error', 'origin_not_allowed');
    expectError(await post({ origin: 'https://evil.example' }), 403, 'authorization_error', 'origin_not_allowed');
    expectError(await post({ origin: originOf(tp).replace('127.0.0.1', 'localhost') }), 403, 'authorization_error', 'origin_not_allowed');
    expectError(await asSession(tp, s, 'DELETE', '/auth/session', undefined, { 'x-csrf-token': null }), 403, 'authorization_error', 'csrf_token_invalid');
    expect(await ticketCount()).toBe(before);
    // with both: written, and the ticket's event names the member and the session
    const made = expectOk(await post({}), 201);
    expect(await ticketCount()).toBe(before + 1);
    const entry = await eventually('the audit entry', async () => {
      const rows = expectOk(await tp.api.get(`${teamPath()}/audit-log`, { key: team.sk_test, query: { action: 'ticket.created', actorId: agent.id } }), 200);
      return rows.find((r: any) => r.resourceId === made.id);
    });
    expect(entry).toMatchObject({ actorType: 'member', actorId: agent.id, actorSessionId: s.session.id, actorName: 'Member agent' });
  });
});

describe('listing and revoking sessions', () => {
  it("a member lists and revokes their own; another member's need manage_members; an admin lists and revokes anyone's", async () => {
    const mine = await sessionOf(agent.email);
    const second = await sessionOf(agent.email);
    const ownersSession = await sessionOf(owner.email);
    const listed = expectOk(await asSession(tp, mine, 'GET', `${teamPath()}/sessions`), 200);
    expect(listed.find((x: any) => x.id === mine.session.id)).toMatchObject({ current: true, memberId: agent.id });
    expect(listed.find((x: any) => x.id === second.session.id)).toMatchObject({ current: false });
    expect(listed.every((x: any) => x.memberId === agent.id)).toBe(true);
    expectError(await asSession(tp, mine, 'GET', `${teamPath()}/sessions?memberId=${owner.id}`), 403, 'authorization_error', 'insufficient_permissions', 'memberId');
    expectError(await asSession(tp, mine, 'DELETE', `${teamPath()}/sessions/${ownersSession.session.id}`), 403, 'authorization_error', 'insufficient_permissions');
    expectOk(await asSession(tp, ownersSession, 'GET', '/auth/session'), 200);
    // own: revoked at once
    expect(expectOk(await asSession(tp, mine, 'DELETE', `${teamPath()}/sessions/${second.session.id}`), 200)).toEqual({ id: second.session.id, deleted: true });
    expectError(await asSession(tp, second, 'GET', '/auth/session'), 401, 'authentication_error', 'session_invalid');
    // the owner lists the agent's and revokes one
    const byOwner = expectOk(await asSession(tp, ownersSession, 'GET', `${teamPath()}/sessions?memberId=${agent.id}`), 200);
    expect(byOwner.map((x: any) => x.id)).toContain(mine.session.id);
    expect(byOwner.map((x: any) => x.id)).not.toContain(second.session.id);
    expectOk(await asSession(tp, ownersSession, 'DELETE', `${teamPath()}/sessions/${mine.session.id}`), 200);
    expectError(await asSession(tp, mine, 'GET', `${teamPath()}/tickets`), 401, 'authentication_error', 'session_invalid');
    expectError(await asSession(tp, ownersSession, 'DELETE', `${teamPath()}/sessions/${mine.session.id}`), 404, 'not_found_error', 'resource_not_found');
    // another team's key cannot reach this team's sessions
    expectError(await tp.api.get(`${teamPath()}/sessions`, { key: tp.otherTeam.sk_test }), 403, 'authorization_error', 'team_access_denied');
    // a publishable key cannot list them
    expectError(await tp.api.get(`${teamPath()}/sessions`, { key: team.pk_test }), 403, 'authorization_error', 'publishable_key_forbidden');
  });

  it('a session revoked mid-use: its next request is 401 and the event stream it opened ends', async () => {
    const s = await sessionOf(agent.email);
    expectOk(await asSession(tp, s, 'GET', `${teamPath()}/tickets`), 200);
    const { token } = expectOk(await asSession(tp, s, 'POST', `${teamPath()}/events/stream-tokens`, {}), 201);
    const stream = new StreamClient(`${tp.baseUrl}${streamPath(team.teamId)}?token=${token}`, null);
    await stream.opened;
    // a stream opened with the cookie itself (a same-origin EventSource sends it)
    const byCookie = await fetch(`${tp.baseUrl}${streamPath(team.teamId)}`, { headers: sessionHeaders(tp, s) });
    expect(byCookie.status).toBe(200);
    const cookieStreamEnded = (async () => {
      const reader = byCookie.body!.getReader();
      try {
        while (!(await reader.read()).done);
      } catch {
        // cut: ended all the same
      }
      return true;
    })();
    // revoked by the owner's key while the page is open
    const sessions = expectOk(await tp.api.get(`${teamPath()}/sessions`, { key: team.sk_test, query: { memberId: agent.id } }), 200);
    expect(sessions.map((x: any) => x.id)).toContain(s.session.id);
    expectOk(await tp.api.delete(`${teamPath()}/sessions/${s.session.id}`, { key: team.sk_test }), 200);
    expectError(await asSession(tp, s, 'GET', `${teamPath()}/tickets`), 401, 'authentication_error', 'session_invalid');
    expectError(await asSession(tp, s, 'POST', `${teamPath()}/tickets`, newTicket()), 401, 'authentication_error', 'session_invalid');
    // the stream ends within its periodic check (2 s) and cannot be opened again with the token
    await eventually('the stream to end', () => stream.failures.length > 0 || stream.es.readyState !== 1, 15_000);
    expect(await cookieStreamEnded).toBe(true);
    stream.close();
    const again = await fetch(`${tp.baseUrl}${streamPath(team.teamId)}?token=${token}`);
    expect(again.status).toBe(401);
    expect(((await again.json()) as any).error.code).toBe('session_invalid');
  });
});

describe('a cross-site request', () => {
  it('is refused with the cookie whatever it asks (403 origin_not_allowed), gets no CORS header, and changes nothing', async () => {
    const s = await sessionOf(agent.email);
    const before = await ticketCount();
    const evil = { origin: 'https://evil.example' };
    const read = await asSession(tp, s, 'GET', `${teamPath()}/tickets`, undefined, evil);
    expectError(read, 403, 'authorization_error', 'origin_not_allowed');
    expect(read.headers.get('access-control-allow-origin')).toBeNull();
    // even with the session's own CSRF token (a page that somehow had it)
    expectError(await asSession(tp, s, 'POST', `${teamPath()}/tickets`, newTicket(), evil), 403, 'authorization_error', 'origin_not_allowed');
    // a form post or image from another site (no Origin, Sec-Fetch-Site says so)
    expectError(await asSession(tp, s, 'GET', `${teamPath()}/tickets`, undefined, { 'sec-fetch-site': 'cross-site' }), 403, 'authorization_error', 'origin_not_allowed');
    expectError(await asSession(tp, s, 'DELETE', '/auth/session', undefined, { 'sec-fetch-site': 'same-site' }), 403, 'authorization_error', 'origin_not_allowed');
    // a preflight allows GET only and never credentials
    const pre = await fetch(`${tp.baseUrl}${teamPath()}/tickets`, { method: 'OPTIONS', headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' } });
    expect(pre.headers.get('access-control-allow-methods')).toBe('GET');
    expect(pre.headers.get('access-control-allow-credentials')).toBeNull();
    expect(await ticketCount()).toBe(before);
    // the session itself is untouched: the console's own page still works
    expectOk(await asSession(tp, s, 'GET', '/auth/session', undefined, { origin: originOf(tp), 'sec-fetch-site': 'same-origin' }), 200);
  });
});

describe("the member's access ends the sessions", () => {
  it("a role change ends the member's sessions (their keys keep working with the new role); removal ends them too", async () => {
    const member = await addMember(tp, log, team, 'agent');
    const s = await sessionOf(member.email);
    expectOk(await asSession(tp, s, 'GET', `${teamPath()}/tickets`), 200);
    expectOk(await tp.api.patch(`${teamPath()}/members/${member.id}`, { role: 'spectator' }, { key: team.sk_test }), 200);
    expectError(await asSession(tp, s, 'GET', `${teamPath()}/tickets`), 401, 'authentication_error', 'session_invalid');
    expectOk(await tp.api.get(`${teamPath()}/tickets`, { key: member.key }), 200);
    const again = await sessionOf(member.email);
    expect(again.session.member.role).toBe('spectator');
    expect(again.session.permissions).not.toContain('manage_tickets');
    expectOk(await tp.api.delete(`${teamPath()}/members/${member.id}`, { key: team.sk_test }), 200);
    expectError(await asSession(tp, again, 'GET', `${teamPath()}/tickets`), 401, 'authentication_error', 'session_invalid');
    const ended = await eventually('session.ended events', () => {
      const found = sessionEvents.filter((e) => e.type === 'session.ended' && e.data.session.memberId === member.id);
      return found.length >= 2 ? found : null;
    });
    expect(ended.map((e) => e.data.reason).sort()).toEqual(['member_removed', 'role_changed']);
  });
});

describe('API keys are unchanged', () => {
  it('an Authorization header wins over the cookie; the widget and publishable keys never take the cookie; signing out leaves keys alone', async () => {
    const s = await sessionOf(agent.email);
    const both = expectOk(await tp.api.get('/auth/whoami', { key: agent.key, headers: sessionHeaders(tp, s) }), 200);
    expect(both).toMatchObject({ keyType: 'secret', memberId: agent.id });
    expect(expectOk(await tp.api.get('/auth/whoami', { key: team.pk_test, headers: sessionHeaders(tp, s) }), 200).keyType).toBe('publishable');
    // a bad key with a good cookie is the key's 401, as before
    expectError(await tp.api.get('/auth/whoami', { key: `sk_test_${'A'.repeat(40)}`, headers: sessionHeaders(tp, s) }), 401, 'authentication_error', 'invalid_api_key');
    // the widget's endpoints (publishable keys only) ignore the cookie
    expectError(await anon().get(`${teamPath()}/widget/config`, { headers: sessionHeaders(tp, s) }), 401, 'authentication_error', 'authentication_required');
    // the console may make the member a key (the session's partition, the member's own)
    const made = expectOk(await asSession(tp, s, 'POST', `${teamPath()}/api-keys`, { name: 'from the console' }), 201);
    expect(made).toMatchObject({ type: 'secret', mode: 'test', memberId: agent.id });
    expect(expectOk(await tp.api.get('/auth/whoami', { key: made.key }), 200)).toMatchObject({ keyType: 'secret', memberId: agent.id });
    // sign out: cookie cleared, session over, the member's key still works
    const out = await asSession(tp, s, 'DELETE', '/auth/session');
    expect(expectOk(out, 200)).toEqual({ id: s.session.id, deleted: true });
    expect(out.headers.get('set-cookie')).toBe('helpdesk_session=; Path=/api/v1; Max-Age=0; HttpOnly; SameSite=Strict');
    expectError(await asSession(tp, s, 'GET', '/auth/session'), 401, 'authentication_error', 'session_invalid');
    expectOk(await tp.api.get(`${teamPath()}/tickets`, { key: agent.key }), 200);
    const ended = await eventually('session.ended', () => sessionEvents.find((e) => e.type === 'session.ended' && e.data.session.id === s.session.id));
    expect(ended).toMatchObject({ actor: { type: 'member', id: agent.id, sessionId: s.session.id }, data: { reason: 'signed_out' } });
  });
});
