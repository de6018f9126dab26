import { createHash, randomBytes } from 'node:crypto';
import { SESSION_IDLE_TIMEOUT_MS, SESSION_MAX_AGE_MS, SIGN_IN_TOKEN_RE, type Partition } from '@helpdesk/contracts';
import { expectError, useHarness, TEAM_A, TEAM_B, type Harness } from './helpers';

/**
 * Sign-in links and console sessions in the workspace service (docs/adr/0068), called as the gateway
 * (and the mail's sender) call it: links by email, their URL at send time, the sign-in exchange, the
 * gateway's look-up, listing and revoking, and the sessions a removal or a role change ends.
 */
let h: Harness;
useHarness((started) => (h = started));

const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const internal = (teamId: string = TEAM_A) => ({ as: { teamId, mode: 'live' as const, keyType: 'internal' as const, permissions: [], memberId: null } });
const NO_TEAM = '00000000-0000-0000-0000-000000000000';
const links = () => h.svc.conn.collection('sign_in_links');
const sessions = () => h.svc.conn.collection('sessions');

interface Member {
  id: string;
  email: string;
  teamId: string;
  permissions: string[];
}
/** A member's own secret key, as the gateway claims it. */
const asKeyOf = (m: Member) => ({ as: { teamId: m.teamId, mode: 'test' as const, memberId: m.id, permissions: m.permissions as never[] } });
/** A member's console session, as the gateway claims it. */
const asSession = (m: Member, sessionId: string) => ({ as: { ...asKeyOf(m).as, keyType: 'session' as const, keyId: sessionId } });

let ownerA: Member;
let ownerB: Member;

async function addMember(teamId: string, email: string, role: string): Promise<Member> {
  const invite = await h.api('POST', '/teams/{team}/invites', { as: { teamId, memberId: null }, body: { email, role } });
  expect(invite.status).toBe(201);
  const { token } = await h.svc.rules.invites.issueLink({ teamId }, invite.body.data.id);
  const accepted = await h.api('POST', '/internal/invites/accept', { ...internal(teamId), body: { token, name: `${role} ${email}` } });
  expect(accepted.status).toBe(201);
  const m = accepted.body.data.member;
  return { id: m.id, email, teamId, permissions: m.permissions };
}

/** Links made for `email` by one request, each with a usable token (asked as the mail's sender asks). */
async function requestLinks(email: string, teamId?: string) {
  const r = await h.api('POST', '/internal/sign-in-links', { ...internal(NO_TEAM), body: { email, ...(teamId ? { teamId } : {}) } });
  expect(r.status).toBe(200);
  const events = await h.eventsOf(r.requestId);
  const issued = await Promise.all(
    events.map(async (e) => {
      const link = await h.api('POST', `/internal/sign-in-links/${e.data.signInLink.id}/link`, internal(e.teamId));
      expect(link.status).toBe(201);
      return { event: e, ...link.body.data };
    }),
  );
  return { count: r.body.data.count as number, requestId: r.requestId, issued };
}

/** A new session of `m` (its own link), as the gateway opens one: only hashes cross. */
async function signIn(m: Member, mode: Partition = 'live') {
  const { issued } = await requestLinks(m.email, m.teamId);
  const sessionToken = `hdses_${randomBytes(20).toString('hex')}`;
  const r = await h.api('POST', '/internal/sessions', {
    ...internal(m.teamId),
    body: { linkTokenHash: sha(issued[0].token), sessionTokenHash: sha(sessionToken), userAgent: 'Mozilla/5.0 (test)', mode },
  });
  expect(r.status).toBe(201);
  return { access: r.body.data, sessionToken, id: r.body.data.session.id as string, requestId: r.requestId };
}
const lookUp = (m: Member, token: string) => h.api('POST', '/internal/sessions/access', { ...internal(m.teamId), body: { tokenHash: sha(token) } });

beforeAll(async () => {
  for (const [teamId, slug] of [[TEAM_A, 'sessions-a'], [TEAM_B, 'sessions-b']] as const) {
    const r = await h.api('POST', '/internal/owner', { ...internal(teamId), body: { name: `Owner ${slug}`, email: `owner@${slug}.example.com`, teamName: `Team ${slug}`, teamSlug: slug } });
    expect(r.status).toBe(201);
    const m = { id: r.body.data.id, email: `owner@${slug}.example.com`, teamId, permissions: r.body.data.permissions };
    if (teamId === TEAM_A) ownerA = m;
    else ownerB = m;
  }
});

describe('sign-in links', () => {
  it('one link per team the address belongs to (any case), each event without a token; teamId narrows to one', async () => {
    const email = `both-${randomBytes(3).toString('hex')}@example.com`;
    const a = await addMember(TEAM_A, email, 'agent');
    const b = await addMember(TEAM_B, email, 'spectator');
    const { count, issued } = await requestLinks(email.toUpperCase());
    expect(count).toBe(2);
    expect(issued.map((i) => [i.event.teamId, i.event.data.signInLink.memberId]).sort()).toEqual([[TEAM_A, a.id], [TEAM_B, b.id]].sort());
    for (const { event, url, token, expiresAt } of issued) {
      expect(event).toMatchObject({ type: 'sign_in_link.requested', mode: 'live', actor: { type: 'system', id: null } });
      expect(event.data).toEqual({
        signInLink: { id: expect.stringMatching(/^sil_/), memberId: expect.any(String), email, delivery: 'mail', expiresAt, createdAt: expect.any(String) },
        memberName: expect.any(String),
        teamName: event.teamId === TEAM_A ? 'Team sessions-a' : 'Team sessions-b',
      });
      expect(JSON.stringify(event)).not.toContain(token);
      expect(Date.parse(expiresAt) - Date.parse(event.data.signInLink.createdAt)).toBe(15 * 60_000);
      expect(SIGN_IN_TOKEN_RE.exec(token)![1]).toBe(event.teamId.replace(/-/g, ''));
      expect(url).toBe(`http://127.0.0.1:8080/app/sign-in?token=${token}`);
      // only the token's hash is kept
      const stored = await links().findOne({ _id: event.data.signInLink.id } as never);
      expect(stored).toMatchObject({ tokenHash: sha(token), usedAt: null });
    }
    expect((await requestLinks(email, TEAM_B)).issued.map((i) => i.event.teamId)).toEqual([TEAM_B]);
  });

  it('an address that is no member stores nothing and emits nothing (the same answer, count 0)', async () => {
    const before = await links().countDocuments();
    const { count, issued } = await requestLinks(`nobody-${randomBytes(3).toString('hex')}@example.com`);
    expect(count).toBe(0);
    expect(issued).toEqual([]);
    expect(await links().countDocuments()).toBe(before);
  });

  it("asking for a link's URL again ends the earlier token; a used or expired link has none (404)", async () => {
    const m = await addMember(TEAM_A, `again-${randomBytes(3).toString('hex')}@example.com`, 'agent');
    const { issued } = await requestLinks(m.email, TEAM_A);
    const id = issued[0].event.data.signInLink.id;
    const second = await h.api('POST', `/internal/sign-in-links/${id}/link`, internal());
    const exchange = (token: string) =>
      h.api('POST', '/internal/sessions', { ...internal(), body: { linkTokenHash: sha(token), sessionTokenHash: sha(randomBytes(8).toString('hex')), userAgent: null, mode: 'live' } });
    expectError(await exchange(issued[0].token), 400, 'sign_in_link_invalid', 'token');
    expect((await exchange(second.body.data.token)).status).toBe(201);
    expectError(await h.api('POST', `/internal/sign-in-links/${id}/link`, internal()), 404, 'resource_not_found');
    // another team's token cannot name this team's link
    expectError(await h.api('POST', `/internal/sign-in-links/${id}/link`, internal(TEAM_B)), 404, 'resource_not_found');
  });

  it("an operator's link: the owner by default or the member of an email; 404 for no such member", async () => {
    const r = await h.api('POST', '/internal/sign-in-links/operator', { ...internal(), body: {} });
    expect(r.status).toBe(201);
    expect(r.body.data).toMatchObject({ memberId: ownerA.id, url: `http://127.0.0.1:8080/app/sign-in?token=${r.body.data.token}` });
    const [e] = await h.eventsOf(r.requestId);
    expect(e.data.signInLink).toMatchObject({ memberId: ownerA.id, delivery: 'operator' });
    const m = await addMember(TEAM_A, `op-${randomBytes(3).toString('hex')}@example.com`, 'agent');
    expect((await h.api('POST', '/internal/sign-in-links/operator', { ...internal(), body: { email: m.email.toUpperCase() } })).body.data.memberId).toBe(m.id);
    expectError(await h.api('POST', '/internal/sign-in-links/operator', { ...internal(), body: { email: 'nobody@example.com' } }), 404, 'resource_not_found');
    expectError(await h.api('POST', '/internal/sign-in-links/operator', { ...internal(), body: { email: 'not an email' } }), 400, 'parameter_invalid', 'email');
  });
});

describe('sign-in (the exchange)', () => {
  it('opens a session: the link used, the member and team answered, session.created by the member through the session', async () => {
    const m = await addMember(TEAM_A, `in-${randomBytes(3).toString('hex')}@example.com`, 'agent');
    const { access, sessionToken, id, requestId } = await signIn(m, 'test');
    expect(access).toEqual({
      session: {
        id: expect.stringMatching(/^ses_[A-Za-z0-9]{24}$/), memberId: m.id, mode: 'test', userAgent: 'Mozilla/5.0 (test)',
        createdAt: expect.any(String), lastUsedAt: access.session.createdAt, idleExpiresAt: expect.any(String), expiresAt: expect.any(String),
        endedAt: null, endReason: null,
      },
      member: { id: m.id, name: expect.any(String), email: m.email, role: 'agent', permissions: m.permissions },
      team: { name: 'Team sessions-a', slug: 'sessions-a', subscriptionStatus: 'active' },
    });
    const created = Date.parse(access.session.createdAt);
    expect(Date.parse(access.session.idleExpiresAt) - created).toBe(SESSION_IDLE_TIMEOUT_MS);
    expect(Date.parse(access.session.expiresAt) - created).toBe(SESSION_MAX_AGE_MS);
    const events = await h.eventsOf(requestId);
    expect(events.map((e) => [e.type, e.mode, e.actor])).toEqual([['session.created', 'test', { type: 'member', id: m.id, sessionId: id }]]);
    expect(JSON.stringify(events)).not.toContain(sha(sessionToken));
    const stored = await sessions().findOne({ _id: id } as never);
    expect(stored).toMatchObject({ tokenHash: sha(sessionToken), partition: 'test', memberId: m.id, endedAt: null });
    expect(await links().findOne({ sessionId: id } as never)).toMatchObject({ usedAt: expect.any(Date) });
  });

  it('a used link is 409 sign_in_link_used, an expired one 410, an unknown one 400; none opens a session', async () => {
    const m = await addMember(TEAM_A, `bad-${randomBytes(3).toString('hex')}@example.com`, 'agent');
    const { issued } = await requestLinks(m.email, TEAM_A);
    const body = (token: string) => ({ linkTokenHash: sha(token), sessionTokenHash: sha(randomBytes(8).toString('hex')), userAgent: null, mode: 'live' });
    const before = await sessions().countDocuments();
    expect((await h.api('POST', '/internal/sessions', { ...internal(), body: body(issued[0].token) })).status).toBe(201);
    expectError(await h.api('POST', '/internal/sessions', { ...internal(), body: body(issued[0].token) }), 409, 'sign_in_link_used', 'token');
    const { issued: late } = await requestLinks(m.email, TEAM_A);
    await links().updateOne({ _id: late[0].event.data.signInLink.id } as never, { $set: { expiresAt: new Date(Date.now() - 1000) } });
    expectError(await h.api('POST', '/internal/sessions', { ...internal(), body: body(late[0].token) }), 410, 'sign_in_link_expired', 'token');
    expectError(await h.api('POST', '/internal/sessions', { ...internal(), body: body(`hdsil_${'0'.repeat(32)}_${'A'.repeat(40)}`) }), 400, 'sign_in_link_invalid', 'token');
    // another team's token (the gateway takes the team from the token): the hash is no link of that team
    const { issued: mine } = await requestLinks(m.email, TEAM_A);
    expectError(await h.api('POST', '/internal/sessions', { ...internal(TEAM_B), body: body(mine[0].token) }), 400, 'sign_in_link_invalid', 'token');
    expect(await sessions().countDocuments()).toBe(before + 1);
    expectError(await h.api('POST', '/internal/sessions', { ...internal(), body: { ...body(mine[0].token), sessionTokenHash: 'nope' } }), 400, 'parameter_invalid', 'sessionTokenHash');
  });

  it("a removed member's link signs in no one", async () => {
    const m = await addMember(TEAM_A, `gone-${randomBytes(3).toString('hex')}@example.com`, 'agent');
    const { issued } = await requestLinks(m.email, TEAM_A);
    expect((await h.api('DELETE', `/teams/{team}/members/${m.id}`, asKeyOf(ownerA))).status).toBe(200);
    const r = await h.api('POST', '/internal/sessions', { ...internal(), body: { linkTokenHash: sha(issued[0].token), sessionTokenHash: sha('x'), userAgent: null, mode: 'live' } });
    expectError(r, 400, 'sign_in_link_invalid', 'token');
  });
});

describe("the gateway's look-up", () => {
  it('answers an open session and refreshes its last use at most once a minute; unknown, idle-expired and past-maximum are 404', async () => {
    const m = await addMember(TEAM_A, `look-${randomBytes(3).toString('hex')}@example.com`, 'manager');
    const { sessionToken, id } = await signIn(m);
    const first = await lookUp(m, sessionToken);
    expect(first.status).toBe(200);
    expect(first.body.data.member).toMatchObject({ id: m.id, role: 'manager' });
    // used two minutes ago: the look-up marks it used now
    const twoMinutesAgo = new Date(Date.now() - 120_000);
    await sessions().updateOne({ _id: id } as never, { $set: { lastUsedAt: twoMinutesAgo } });
    const touched = await lookUp(m, sessionToken);
    expect(Date.parse(touched.body.data.session.lastUsedAt)).toBeGreaterThan(twoMinutesAgo.getTime() + 60_000);
    expect(((await sessions().findOne({ _id: id } as never)) as any).lastUsedAt.getTime()).toBe(Date.parse(touched.body.data.session.lastUsedAt));
    expectError(await lookUp(m, 'hdses_unknown'), 404, 'resource_not_found');
    // another team's look-up of this token: no such session there
    expectError(await lookUp({ ...m, teamId: TEAM_B }, sessionToken), 404, 'resource_not_found');
    await sessions().updateOne({ _id: id } as never, { $set: { lastUsedAt: new Date(Date.now() - SESSION_IDLE_TIMEOUT_MS - 1000) } });
    expectError(await lookUp(m, sessionToken), 404, 'resource_not_found');
    await sessions().updateOne({ _id: id } as never, { $set: { lastUsedAt: new Date(), expiresAt: new Date(Date.now() - 1000) } });
    expectError(await lookUp(m, sessionToken), 404, 'resource_not_found');
  });
});

describe('listing and revoking', () => {
  it("lists the caller's member's open sessions, `current` marking the caller's; another member's need manage_members", async () => {
    const agent = await addMember(TEAM_A, `list-${randomBytes(3).toString('hex')}@example.com`, 'agent');
    const one = await signIn(agent);
    const two = await signIn(agent, 'test');
    const mine = await h.api('GET', '/teams/{team}/sessions', asSession(agent, two.id));
    expect(mine.status).toBe(200);
    expect(mine.body.data.map((s: any) => [s.id, s.current])).toEqual(expect.arrayContaining([[one.id, false], [two.id, true]]));
    expect(mine.body.data).toHaveLength(2);
    expect(Object.keys(mine.body.data[0]).sort()).toEqual(['createdAt', 'current', 'expiresAt', 'id', 'idleExpiresAt', 'lastUsedAt', 'memberId', 'mode', 'object', 'userAgent']);
    // with the member's API key: the same sessions, none current
    expect((await h.api('GET', '/teams/{team}/sessions', asKeyOf(agent))).body.data.map((s: any) => s.current)).toEqual([false, false]);
    expectError(await h.api('GET', `/teams/{team}/sessions?memberId=${ownerA.id}`, asSession(agent, one.id)), 403, 'insufficient_permissions', 'memberId');
    const byOwner = await h.api('GET', `/teams/{team}/sessions?memberId=${agent.id}`, asKeyOf(ownerA));
    expect(byOwner.body.data.map((s: any) => s.id).sort()).toEqual([one.id, two.id].sort());
    expectError(await h.api('GET', '/teams/{team}/sessions?memberId=mem_000000000000000000000000', asKeyOf(ownerA)), 404, 'resource_not_found');
    expectError(await h.api('GET', '/teams/{team}/sessions?memberId=nope', asKeyOf(ownerA)), 400, 'parameter_invalid', 'memberId');
    expectError(await h.api('GET', '/teams/{team}/sessions?page=2', asKeyOf(ownerA)), 400, 'parameter_invalid', 'page');
    // a key of no member, naming none: nothing
    expect((await h.api('GET', '/teams/{team}/sessions', { as: { memberId: null } })).body.data).toEqual([]);
    // another team's member's sessions are not this team's
    expect((await h.api('GET', `/teams/{team}/sessions?memberId=${agent.id}`, { as: { teamId: TEAM_B, memberId: ownerB.id } })).status).toBe(404);
  });

  it("revokes one's own session; another member's needs manage_members (403, nothing ended); ended is 404", async () => {
    const agent = await addMember(TEAM_A, `rev-${randomBytes(3).toString('hex')}@example.com`, 'agent');
    const other = await addMember(TEAM_A, `rev2-${randomBytes(3).toString('hex')}@example.com`, 'agent');
    const own = await signIn(agent);
    const theirs = await signIn(other);
    expectError(await h.api('DELETE', `/teams/{team}/sessions/${theirs.id}`, asKeyOf(agent)), 403, 'insufficient_permissions');
    expect((await lookUp(other, theirs.sessionToken)).status).toBe(200);
    const r = await h.api('DELETE', `/teams/{team}/sessions/${own.id}`, asKeyOf(agent));
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({ id: own.id, deleted: true });
    const [e] = await h.eventsOf(r.requestId);
    expect(e).toMatchObject({ type: 'session.ended', data: { reason: 'revoked', session: { id: own.id, endReason: 'revoked', endedAt: expect.any(String) } } });
    expectError(await lookUp(agent, own.sessionToken), 404, 'resource_not_found');
    expectError(await h.api('DELETE', `/teams/{team}/sessions/${own.id}`, asKeyOf(agent)), 404, 'resource_not_found');
    // an admin revokes anyone's; another team cannot see it
    expectError(await h.api('DELETE', `/teams/{team}/sessions/${theirs.id}`, { as: { teamId: TEAM_B, memberId: ownerB.id } }), 404, 'resource_not_found');
    expect((await h.api('DELETE', `/teams/{team}/sessions/${theirs.id}`, asKeyOf(ownerA))).status).toBe(200);
    expectError(await lookUp(other, theirs.sessionToken), 404, 'resource_not_found');
  });
});

describe("a session's own changes", () => {
  it('switches partition (session.updated) and signs out (session.ended signed_out); only the session itself may', async () => {
    const m = await addMember(TEAM_A, `own-${randomBytes(3).toString('hex')}@example.com`, 'agent');
    const s = await signIn(m, 'live');
    expectError(await h.api('PATCH', '/internal/sessions/own', { ...asKeyOf(m), body: { mode: 'test' } }), 403, 'insufficient_permissions');
    const patched = await h.api('PATCH', '/internal/sessions/own', { ...asSession(m, s.id), body: { mode: 'test' } });
    expect(patched.status).toBe(200);
    expect(patched.body.data.session.mode).toBe('test');
    const [updated] = await h.eventsOf(patched.requestId);
    expect(updated).toMatchObject({ type: 'session.updated', actor: { type: 'member', id: m.id, sessionId: s.id }, data: { changes: ['mode'], previous: { mode: 'live' } } });
    const same = await h.api('PATCH', '/internal/sessions/own', { ...asSession(m, s.id), body: { mode: 'test' } });
    expect(await h.eventsOf(same.requestId)).toEqual([]);
    expectError(await h.api('PATCH', '/internal/sessions/own', { ...asSession(m, s.id), body: { mode: 'staging' } }), 400, 'parameter_invalid', 'mode');
    const out = await h.api('DELETE', '/internal/sessions/own', asSession(m, s.id));
    expect(out.body.data).toEqual({ id: s.id, deleted: true });
    expect((await h.eventsOf(out.requestId)).map((e) => [e.type, e.data.reason])).toEqual([['session.ended', 'signed_out']]);
    expectError(await lookUp(m, s.sessionToken), 404, 'resource_not_found');
    expectError(await h.api('DELETE', '/internal/sessions/own', asSession(m, s.id)), 404, 'resource_not_found');
  });
});

describe("sessions end with the member's access", () => {
  it("a role change ends the member's sessions in the same change (session.ended role_changed)", async () => {
    const m = await addMember(TEAM_A, `role-${randomBytes(3).toString('hex')}@example.com`, 'agent');
    const s1 = await signIn(m);
    const s2 = await signIn(m);
    const r = await h.api('PATCH', `/teams/{team}/members/${m.id}`, { ...asKeyOf(ownerA), body: { role: 'manager' } });
    expect(r.status).toBe(200);
    const events = await h.eventsOf(r.requestId);
    expect(events[0].type).toBe('member.role_changed');
    expect(events.slice(1).map((e) => [e.type, e.data.reason, e.data.session.id]).sort()).toEqual([s1.id, s2.id].sort().map((id) => ['session.ended', 'role_changed', id]));
    expectError(await lookUp(m, s1.sessionToken), 404, 'resource_not_found');
    expectError(await lookUp(m, s2.sessionToken), 404, 'resource_not_found');
    // a new sign-in carries the new role
    expect((await signIn(m)).access.member.role).toBe('manager');
  });

  it("removing the member ends their sessions (session.ended member_removed)", async () => {
    const m = await addMember(TEAM_A, `rm-${randomBytes(3).toString('hex')}@example.com`, 'agent');
    const s = await signIn(m);
    const r = await h.api('DELETE', `/teams/{team}/members/${m.id}`, asKeyOf(ownerA));
    expect((await h.eventsOf(r.requestId)).map((e) => [e.type, e.data.reason ?? null])).toEqual([['member.removed', null], ['session.ended', 'member_removed']]);
    expectError(await lookUp(m, s.sessionToken), 404, 'resource_not_found');
  });
});

describe('the audit log', () => {
  it("names the member and the session of what a session did (actorSessionId), and the chain verifies", async () => {
    const m = await addMember(TEAM_A, `audit-${randomBytes(3).toString('hex')}@example.com`, 'agent');
    const s = await signIn(m);
    const patched = await h.api('PATCH', '/internal/sessions/own', { ...asSession(m, s.id), body: { mode: 'test' } });
    const [event] = await h.eventsOf(patched.requestId);
    let entry: any;
    for (const deadline = Date.now() + 10_000; !entry && Date.now() < deadline; await new Promise((r) => setTimeout(r, 20))) {
      entry = await h.svc.conn.collection('audit_log').findOne({ eventId: event.id } as never);
    }
    const listed = await h.api('GET', `/teams/{team}/audit-log?actorId=${m.id}&action=session.updated`, { as: { mode: event.mode } });
    expect(listed.body.data).toEqual([
      expect.objectContaining({ action: 'session.updated', resourceType: 'session', resourceId: s.id, actorType: 'member', actorId: m.id, actorSessionId: s.id, actorName: expect.stringContaining(m.email) }),
    ]);
    // entries of keys name no session
    const byKey = await h.api('GET', '/teams/{team}/audit-log?action=member.role_changed', { as: { mode: 'test' } });
    for (const e of byKey.body.data) expect(e.actorSessionId).toBeNull();
    expect((await h.api('GET', '/teams/{team}/audit-log/verify', { as: { mode: event.mode } })).body.data).toMatchObject({ valid: true });
  });
});
