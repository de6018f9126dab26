/**
 * The providers' inbound webhook (docs/adr/0041): raw MIME posted to the inbound listener,
 * authenticated by the partition's secret (created, rotated and revoked through the API).
 */
import { randomBytes } from 'node:crypto';
import type { EventEnvelope } from '@helpdesk/contracts';
import { eventually } from '@helpdesk/testing';
import { customerEmail, DOMAIN, MAX_BYTES, startEmailPlatform, ticketTotal, type EmailPlatform } from './email-helpers';
import { expectError, expectOk } from './helpdesk-helpers';
import { addMember, WorkspaceEvents } from './workspace-helpers';

let ep: EmailPlatform;
const inbound = () => `${ep.tp.teamPath}/inbound-email`;

const events: EventEnvelope[] = [];
beforeAll(async () => {
  ep = await startEmailPlatform();
  await ep.tp.observe('ticketing', ['inbound_email.*'], async (e) => {
    events.push(e);
  });
}, 60_000);
afterAll(async () => ep?.stop(), 60_000);

const mime = (from: string, subject: string, body: string, extra: string[] = []) =>
  [`From: Pat Poster <${from}>`, `To: support@acme.example`, `Subject: ${subject}`, `Message-ID: <${randomBytes(8).toString('hex')}@provider.example>`, ...extra, 'Content-Type: text/plain; charset=utf-8', '', body, ''].join('\r\n');

/** POSTs raw bytes to the webhook listener. */
async function post(teamId: string, body: string | Buffer, auth: string | null, contentType = 'message/rfc822') {
  const res = await fetch(`http://127.0.0.1:${ep.httpPort}/inbound-email/${teamId}/messages`, {
    method: 'POST',
    headers: { 'content-type': contentType, ...(auth ? { authorization: auth } : {}) },
    body,
  });
  return { status: res.status, body: (await res.json()) as any, headers: res.headers };
}

const bearer = (secret: string) => `Bearer ${secret}`;

async function rotate(api = ep.tp.api, path = inbound()): Promise<any> {
  return expectOk(await api.post(`${path}/secret`), 201);
}

function expectRefused(res: { status: number; body: any }, status: number, code: string, param?: string) {
  expect({ status: res.status, success: res.body.success, code: res.body.error?.code, param: res.body.error?.param }).toEqual({ status, success: false, code, param });
  expect(res.body.error.request_id).toMatch(/^req_/);
}

describe('inbound email settings and the webhook secret', () => {
  it('GET answers the partition\'s addresses; the secret is shown once, then only its hint', async () => {
    const other = await ep.tp.createTeam();
    const path = `/teams/${other.teamId}/inbound-email`;
    const api = ep.tp.api.withKey(other.sk_test);
    const before = expectOk(await api.get(path), 200);
    expect(before).toEqual({
      object: 'inbound_email',
      address: `${other.teamId}.test@${DOMAIN}`,
      replyAddressTemplate: `${other.teamId}.test+{ticketId}@${DOMAIN}`,
      webhookPath: `/inbound-email/${other.teamId}/messages`,
      secret: null,
    });
    const live = expectOk(await ep.tp.api.withKey(other.sk_live).get(path), 200);
    expect(live.address).toBe(`${other.teamId}@${DOMAIN}`);
    const s = await rotate(api, path);
    expect(s).toMatchObject({ object: 'inbound_email_secret', hint: s.secret.slice(-4), previousValidUntil: null });
    expect(s.secret).toMatch(/^ies_test_[A-Za-z0-9]{40}$/);
    const after = expectOk(await api.get(path), 200);
    expect(after.secret).toEqual({ hint: s.hint, createdAt: s.createdAt, previousValidUntil: null });
    expect(JSON.stringify(after)).not.toContain(s.secret);
    await ep.tp.platform.ticketing.relay.drain();
    const rotated = await eventually('inbound_email.secret_rotated', () => events.find((e) => e.teamId === other.teamId));
    expect(rotated).toMatchObject({ type: 'inbound_email.secret_rotated', mode: 'test', data: { hint: s.hint, createdAt: s.createdAt, previousValidUntil: null } });
    expect(JSON.stringify(rotated)).not.toContain(s.secret);
  });

  it('publishable keys cannot read or rotate it', async () => {
    expectError(await ep.tp.api.withKey(ep.tp.team.pk_test).get(inbound()), 403, 'authorization_error', 'publishable_key_forbidden');
    expectError(await ep.tp.api.withKey(ep.tp.team.pk_test).post(`${inbound()}/secret`), 403, 'authorization_error', 'publishable_key_write');
  });

  it('a member without manage_settings can neither read, rotate nor revoke it; a body on the rotation is refused; nothing changes', async () => {
    const other = await ep.tp.createTeam();
    const path = `/teams/${other.teamId}/inbound-email`;
    const owner = ep.tp.api.withKey(other.sk_test);
    const s = await rotate(owner, path);
    const agent = await addMember(ep.tp, await WorkspaceEvents.start(ep.tp), other, 'agent');
    const asAgent = ep.tp.api.withKey(agent.key);
    expectError(await asAgent.get(path), 403, 'authorization_error', 'insufficient_permissions');
    expectError(await asAgent.post(`${path}/secret`), 403, 'authorization_error', 'insufficient_permissions');
    expectError(await asAgent.delete(`${path}/secret`), 403, 'authorization_error', 'insufficient_permissions');
    expectError(await ep.tp.api.withKey(other.pk_test).delete(`${path}/secret`), 403, 'authorization_error', 'publishable_key_write');
    expectError(await owner.post(`${path}/secret`, { previousValidUntil: null }), 400, 'invalid_request_error', 'parameter_invalid', 'previousValidUntil');
    expect(expectOk(await owner.get(path), 200).secret).toEqual({ hint: s.hint, createdAt: s.createdAt, previousValidUntil: null });
  });

  it('another team\'s path is refused', async () => {
    expectError(await ep.tp.api.get(`/teams/${ep.tp.otherTeam.teamId}/inbound-email`), 403, 'authorization_error', 'team_access_denied');
  });
});

describe('POST /inbound-email/{teamId}/messages', () => {
  let secret: string;
  beforeAll(async () => {
    secret = (await rotate()).secret;
  });

  it('raw MIME with the secret opens a ticket in the secret\'s partition (201), visible through the API', async () => {
    const from = customerEmail('hook');
    const res = await post(ep.tp.team.teamId, mime(from, 'Webhook question', 'Hello from the provider'), bearer(secret));
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ object: 'inbound_email_delivery', outcome: 'created', reason: null });
    const t = expectOk(await ep.tp.api.get(`${ep.tp.teamPath}/tickets/${res.body.data.ticketId}`), 200);
    expect(t).toMatchObject({ title: 'Webhook question', channel: 'email', openedBy: 'customer' });
    expect(t.messages).toEqual([expect.objectContaining({ id: res.body.data.messageId, sender: 'customer', senderName: 'Pat Poster', content: 'Hello from the provider' })]);
    // The test partition's secret wrote into the test partition only.
    expect((await ep.tp.api.withKey(ep.tp.team.sk_live).get(`${ep.tp.teamPath}/tickets/${t.id}`)).status).toBe(404);
  });

  it('Basic authentication with the secret as the password works (a provider\'s https://user:secret@host URL)', async () => {
    const basic = `Basic ${Buffer.from(`inbound:${secret}`).toString('base64')}`;
    const res = await post(ep.tp.team.teamId, mime(customerEmail('basic'), 'Basic', 'b'), basic);
    expect(res.status).toBe(201);
  });

  it('a reply posted through the webhook continues its ticket (200 continued); an auto-reply is 200 ignored', async () => {
    const from = customerEmail('thread');
    const first = mime(from, 'First', 'one');
    const created = (await post(ep.tp.team.teamId, first, bearer(secret))).body.data;
    const firstId = /Message-ID: (<[^>]+>)/.exec(first)![1];
    const reply = await post(ep.tp.team.teamId, mime(from, 'Re: First', 'two', [`In-Reply-To: ${firstId}`]), bearer(secret));
    expect(reply.status).toBe(200);
    expect(reply.body.data).toMatchObject({ outcome: 'continued', ticketId: created.ticketId });
    const auto = await post(ep.tp.team.teamId, mime(from, 'Away', 'away', [`In-Reply-To: ${firstId}`, 'Auto-Submitted: auto-replied']), bearer(secret));
    expect(auto.status).toBe(200);
    expect(auto.body.data).toMatchObject({ outcome: 'ignored', ticketId: null, reason: 'Auto-Submitted: auto-replied' });
    expect(expectOk(await ep.tp.api.get(`${ep.tp.teamPath}/tickets/${created.ticketId}`), 200).messageCount).toBe(2);
  });

  it('the same mail posted twice at once makes one ticket; two new mails from one new sender at once make one customer', async () => {
    const raw = mime(customerEmail('race'), 'Race', 'once');
    const outcomes = await Promise.all([post(ep.tp.team.teamId, raw, bearer(secret)), post(ep.tp.team.teamId, raw, bearer(secret))]);
    expect(outcomes.map((o) => o.body.data.outcome).sort()).toEqual(['created', 'duplicate']);
    expect(new Set(outcomes.map((o) => o.body.data.ticketId)).size).toBe(1);

    const from = customerEmail('twins');
    const both = await Promise.all([post(ep.tp.team.teamId, mime(from, 'A', 'a'), bearer(secret)), post(ep.tp.team.teamId, mime(from, 'B', 'b'), bearer(secret))]);
    expect(both.map((o) => o.status)).toEqual([201, 201]);
    const customers = new Set<string>();
    for (const o of both) customers.add(expectOk(await ep.tp.api.get(`${ep.tp.teamPath}/tickets/${o.body.data.ticketId}`), 200).customerId);
    expect(customers.size).toBe(1);
    expect([...customers][0]).toMatch(/^cus_/);
  });

  it('no secret is 401 authentication_required; a wrong one 401 invalid_api_key; nothing is written', async () => {
    const before = await ticketTotal(ep.tp);
    expectRefused(await post(ep.tp.team.teamId, mime(customerEmail('n'), 's', 'b'), null), 401, 'authentication_required');
    expectRefused(await post(ep.tp.team.teamId, mime(customerEmail('n'), 's', 'b'), bearer(`ies_test_${'A'.repeat(40)}`)), 401, 'invalid_api_key');
    expectRefused(await post(ep.tp.team.teamId, mime(customerEmail('n'), 's', 'b'), bearer('not-a-secret')), 401, 'invalid_api_key');
    // The live partition's secret is not the test one's.
    expectRefused(await post(ep.tp.team.teamId, mime(customerEmail('n'), 's', 'b'), bearer(secret.replace('ies_test_', 'ies_live_'))), 401, 'invalid_api_key');
    expect(await ticketTotal(ep.tp)).toBe(before);
  });

  it('another team\'s secret is refused on this team\'s path, and this team\'s on another\'s', async () => {
    const other = await ep.tp.createTeam();
    const otherSecret = (await rotate(ep.tp.api.withKey(other.sk_test), `/teams/${other.teamId}/inbound-email`)).secret;
    const before = await ticketTotal(ep.tp);
    expectRefused(await post(ep.tp.team.teamId, mime(customerEmail('o'), 's', 'b'), bearer(otherSecret)), 401, 'invalid_api_key');
    expectRefused(await post(other.teamId, mime(customerEmail('o'), 's', 'b'), bearer(secret)), 401, 'invalid_api_key');
    expect(await ticketTotal(ep.tp)).toBe(before);
    const otherTickets = await ep.tp.api.withKey(other.sk_test).get(`/teams/${other.teamId}/tickets`);
    expect(otherTickets.body.meta.pagination.total).toBe(0);
  });

  it('a body over the size limit is 413, malformed MIME 400 (param body), a non-MIME content type 415; nothing is written', async () => {
    const before = await ticketTotal(ep.tp);
    expectRefused(await post(ep.tp.team.teamId, mime(customerEmail('big'), 'big', 'x'.repeat(MAX_BYTES)), bearer(secret)), 413, 'parameter_invalid', 'body');
    expectRefused(await post(ep.tp.team.teamId, 'this is not a mail at all', bearer(secret)), 400, 'parameter_invalid', 'body');
    expectRefused(await post(ep.tp.team.teamId, 'Subject: no sender\r\n\r\nbody', bearer(secret)), 400, 'parameter_invalid', 'body');
    expectRefused(await post(ep.tp.team.teamId, JSON.stringify({ mime: 'x' }), bearer(secret), 'application/json'), 415, 'parameter_invalid', 'body');
    expect(await ticketTotal(ep.tp)).toBe(before);
  });

  it('wrong method and path: 405 with Allow, 404', async () => {
    const res = await fetch(`http://127.0.0.1:${ep.httpPort}/inbound-email/${ep.tp.team.teamId}/messages`);
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
    expect((await fetch(`http://127.0.0.1:${ep.httpPort}/elsewhere`, { method: 'POST' })).status).toBe(404);
  });

  it('rotation: the previous secret works during its grace period; revoking ends both at once', async () => {
    const old = secret;
    const next = await rotate();
    expect(Date.parse(next.previousValidUntil) - Date.parse(next.createdAt)).toBe(24 * 60 * 60 * 1000);
    expect((await post(ep.tp.team.teamId, mime(customerEmail('r1'), 'old', 'b'), bearer(old))).status).toBe(201);
    expect((await post(ep.tp.team.teamId, mime(customerEmail('r2'), 'new', 'b'), bearer(next.secret))).status).toBe(201);
    expect(expectOk(await ep.tp.api.delete(`${inbound()}/secret`), 200)).toEqual({ deleted: true });
    await ep.tp.platform.ticketing.relay.drain();
    await eventually('inbound_email.secret_revoked', () =>
      events.find((e) => e.teamId === ep.tp.team.teamId && e.type === 'inbound_email.secret_revoked' && (e.data as { hint: string }).hint === next.hint),
    );
    expectRefused(await post(ep.tp.team.teamId, mime(customerEmail('r3'), 'x', 'b'), bearer(old)), 401, 'invalid_api_key');
    expectRefused(await post(ep.tp.team.teamId, mime(customerEmail('r4'), 'x', 'b'), bearer(next.secret)), 401, 'invalid_api_key');
    expectError(await ep.tp.api.delete(`${inbound()}/secret`), 404, 'not_found_error', 'resource_not_found');
    expect(expectOk(await ep.tp.api.get(inbound()), 200).secret).toBeNull();
    secret = (await rotate()).secret;
  });
});
