/**
 * The chat widget's public conversation endpoints (docs/adr/0040) through the gateway: a visitor with
 * the team's publishable key starts a conversation (a `widget` ticket, the customer found or created
 * `pending`), continues it, reads it and its live stream; what a visitor sees is exactly the visitor's
 * fields (never staff data); every refusal answers the documented error and writes nothing.
 */
import { MongoClient } from 'mongodb';
import type { EventEnvelope } from '@helpdesk/contracts';
import { startTestPlatform, type TeamKeys, type TestPlatform } from '../support/platform';
import { createCustomer, eventually, expectError, expectOk, ISO, MSG_ID, TKT_ID } from './helpdesk-helpers';
import { ConversationStream, conversationPath, startConversation, widgetPath } from './widget-helpers';

let tp: TestPlatform;
let team: TeamKeys;
const confirmations: EventEnvelope[] = [];

beforeAll(async () => {
  tp = await startTestPlatform();
  team = await tp.createTeam('Widget Co');
  await tp.observe('customers', ['customer.confirmation_requested'], async (e) => {
    confirmations.push(e);
  });
}, 60_000);
afterAll(async () => {
  await tp?.stop();
}, 60_000);

const CONVERSATION_KEYS = ['awaitingEmailConfirmation', 'createdAt', 'customer', 'id', 'messages', 'object', 'status', 'title', 'updatedAt'];
const VISITOR_MESSAGE_KEYS = ['content', 'createdAt', 'id', 'sender', 'senderName'];
const staff = (key = team.sk_test) => tp.api.withKey(key);
const total = async (path: string, key: string): Promise<number> => {
  const res = await tp.api.get(path, { key, query: { pageSize: 1 } });
  expectOk(res, 200);
  return res.body.meta.pagination.total;
};
const ticketCount = (t: TeamKeys = team, key = t.sk_test) => total(`/teams/${t.teamId}/tickets`, key);
const customerCount = (t: TeamKeys = team) => total(`/teams/${t.teamId}/customers`, t.sk_test);

describe('a visitor writes', () => {
  it('starts a conversation: a widget ticket with the first customer message, the customer created pending', async () => {
    const started = await startConversation(tp, team.teamId, team.pk_test, { name: 'Vera Visitor', email: 'vera@example.com', message: 'My order is late\nIt was due Monday.' });
    expect(Object.keys(started).sort()).toEqual([...CONVERSATION_KEYS, 'conversationToken'].sort());
    expect(started).toEqual({
      object: 'widget_conversation',
      id: expect.stringMatching(TKT_ID),
      title: 'My order is late',
      status: 'new',
      customer: { name: 'Vera Visitor', email: 'vera@example.com' },
      awaitingEmailConfirmation: true,
      messages: [{ id: expect.stringMatching(MSG_ID), sender: 'customer', senderName: 'Vera Visitor', content: 'My order is late\nIt was due Monday.', createdAt: expect.stringMatching(ISO) }],
      conversationToken: expect.stringMatching(/^wct_[A-Za-z0-9_-]{43}$/),
      createdAt: expect.stringMatching(ISO),
      updatedAt: expect.stringMatching(ISO),
    });

    const ticket = expectOk(await staff().get(`/teams/${team.teamId}/tickets/${started.id}`), 200);
    expect(ticket).toMatchObject({ title: 'My order is late', channel: 'widget', openedBy: 'customer', messageCount: 1 });
    expect(ticket.messages).toEqual([expect.objectContaining({ sender: 'customer', content: 'My order is late\nIt was due Monday.', isInternal: false })]);
    const customer = expectOk(await staff().get(`/teams/${team.teamId}/customers/${ticket.customerId}`), 200);
    expect(customer).toMatchObject({ name: 'Vera Visitor', email: 'vera@example.com', status: 'pending' });
    // Nothing of it in the live partition.
    expect(await ticketCount(team, team.sk_live)).toBe(0);
  });

  it('finds an existing customer by email (any case) and keeps their status; a second conversation is a second ticket', async () => {
    const known = await createCustomer(tp, 'Known Customer', 'known@example.com', team.sk_test, `/teams/${team.teamId}`);
    const a = await startConversation(tp, team.teamId, team.pk_test, { name: 'Known', email: 'KNOWN@example.com', message: 'Hello' });
    const b = await startConversation(tp, team.teamId, team.pk_test, { name: 'Known', email: 'known@example.com', message: 'Again' });
    expect(a.id).not.toBe(b.id);
    for (const c of [a, b]) {
      const t = expectOk(await staff().get(`/teams/${team.teamId}/tickets/${c.id}`), 200);
      expect(t.customerId).toBe(known.id);
    }
    expect(expectOk(await staff().get(`/teams/${team.teamId}/customers/${known.id}`), 200).status).toBe('active');
  });

  it('shortens a 5,000-character subject to 255 characters; whitespace-only subject falls back to the message', async () => {
    const long = await startConversation(tp, team.teamId, team.pk_test, { name: 'Long', email: 'long@example.com', message: 'Body', subject: 'x'.repeat(5_000) });
    expect([...long.title].length).toBe(255);
    expect(long.title.endsWith('…')).toBe(true);
    const blank = await startConversation(tp, team.teamId, team.pk_test, { name: 'Blank', email: 'blank@example.com', message: `${'y'.repeat(300)}\nsecond line`, subject: '   ' });
    expect(blank.title).toBe(`${'y'.repeat(254)}…`);
    expect(expectOk(await staff().get(`/teams/${team.teamId}/tickets/${blank.id}`), 200).title).toBe(blank.title);
  });

  it('continues the same ticket; the conversation shows exactly the visitor\'s fields: public messages only, no staff data', async () => {
    const c = await startConversation(tp, team.teamId, team.pk_test, { name: 'Nia', email: 'nia@example.com', message: 'First' });
    const more = expectOk(await tp.api.post(conversationPath(team.teamId, c.id, c.conversationToken, '/messages'), { content: 'Second' }, { key: team.pk_test }), 201);
    expect(Object.keys(more).sort()).toEqual(VISITOR_MESSAGE_KEYS);
    expect(more).toMatchObject({ sender: 'customer', senderName: 'Nia', content: 'Second' });

    // Staff work on the ticket: an internal note, notes, metadata, tags, a public reply.
    const path = `/teams/${team.teamId}/tickets/${c.id}`;
    expectOk(await staff().patch(path, { notes: 'STAFF-NOTES-SECRET', metadata: { vip: 'STAFF-METADATA' }, tags: ['staff-tag'], status: 'open' }), 200);
    expectOk(await staff().post(`${path}/messages`, { content: 'INTERNAL-NOTE-SECRET', messageType: 'internal' }), 201);
    expectOk(await staff().post(`${path}/messages`, { content: 'We are on it', senderName: 'Alex (Support)' }), 201);
    const ticket = expectOk(await staff().get(path), 200);
    expect(ticket.messageCount).toBe(4);
    expect(ticket.channel).toBe('widget');

    const res = await tp.api.get(conversationPath(team.teamId, c.id, c.conversationToken), { key: team.pk_test });
    const seen = expectOk(res, 200);
    expect(Object.keys(seen).sort()).toEqual(CONVERSATION_KEYS);
    expect(Object.keys(seen.customer).sort()).toEqual(['email', 'name']);
    for (const m of seen.messages) expect(Object.keys(m).sort()).toEqual(VISITOR_MESSAGE_KEYS);
    expect(seen.messages.map((m: any) => [m.sender, m.content])).toEqual([
      ['customer', 'First'],
      ['customer', 'Second'],
      ['agent', 'We are on it'],
    ]);
    expect(seen.status).toBe('open');
    expect(res.text).not.toMatch(/SECRET|STAFF-METADATA|staff-tag|assignedTo|isInternal|notes|metadata/);
  });

  it('streams the agents\' public replies live, never an internal note nor another conversation\'s message', async () => {
    const c = await startConversation(tp, team.teamId, team.pk_test, { name: 'Sam', email: 'sam@example.com', message: 'Hi' });
    const other = await startConversation(tp, team.teamId, team.pk_test, { name: 'Other', email: 'other@example.com', message: 'Hi too' });
    const stream = new ConversationStream(tp.baseUrl + conversationPath(team.teamId, c.id, c.conversationToken, '/stream'), { authorization: `Bearer ${team.pk_test}` });
    const res = await stream.response;
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const path = `/teams/${team.teamId}/tickets/${c.id}/messages`;
    // The stream is open once the first public reply arrives; what follows must arrive too, in order.
    await eventually('the stream carries a reply', async () => {
      if (!stream.frames.length) expectOk(await staff().post(path, { content: 'ping' }), 201);
      return stream.frames.length > 0;
    });
    expectOk(await staff().post(path, { content: 'INTERNAL-ONLY', isInternal: true }), 201);
    expectOk(await staff().post(`/teams/${team.teamId}/tickets/${other.id}/messages`, { content: 'OTHER-CONVERSATION' }), 201);
    expectOk(await tp.api.post(conversationPath(team.teamId, c.id, c.conversationToken, '/messages'), { content: 'Thanks' }, { key: team.pk_test }), 201);
    expectOk(await staff().post(path, { content: 'Last reply', senderName: 'Alex' }), 201);
    await eventually('the last reply arrives', () => stream.frames.some((f) => f.data.content === 'Last reply'));
    stream.close();
    const contents = stream.frames.map((f) => f.data.content).filter((t) => t !== 'ping');
    expect(contents).toEqual(['Thanks', 'Last reply']);
    for (const f of stream.frames) {
      expect(f.event).toBe('message');
      expect(f.id).toMatch(/^\d+-\d+$/);
      expect(Object.keys(f.data).sort()).toEqual(VISITOR_MESSAGE_KEYS);
    }
    // Replay after a reconnection: what came after the given id.
    const firstId = stream.frames[stream.frames.length - 2].id;
    const again = new ConversationStream(tp.baseUrl + conversationPath(team.teamId, c.id, c.conversationToken, '/stream'), { authorization: `Bearer ${team.pk_test}`, 'last-event-id': firstId });
    const replayed = await again.waitFor(1, 'replayed messages');
    expect(replayed.map((f) => f.data.content)).toEqual(['Last reply']);
    again.close();
  });
});

describe('a new customer confirms their email', () => {
  beforeAll(async () => {
    // Its own team: the visitors' limit counts per team and address (all tests run from 127.0.0.1).
    team = await tp.createTeam('Confirm Co');
  });

  const codeFor = (email: string) => eventually(`the confirmation code for ${email}`, () => confirmations.find((e) => (e.data as any).customer.email === email)?.data as any);

  it('is mailed a code; a wrong code is refused, the right one makes the pending customer active', async () => {
    const c = await startConversation(tp, team.teamId, team.pk_test, { name: 'Cora', email: 'cora@example.com', message: 'Hi' });
    expect(c.awaitingEmailConfirmation).toBe(true);
    const requested = await codeFor('cora@example.com');
    expect(requested.code).toMatch(/^[A-Z2-9]{8}$/);
    const ticket = expectOk(await staff().get(`/teams/${team.teamId}/tickets/${c.id}`), 200);
    expect(requested.customer).toEqual({ id: ticket.customerId, name: 'Cora', email: 'cora@example.com' });
    // The notifications service's mail outbox holds the message for the customer, with the code.
    const mongo = await MongoClient.connect(tp.platform.mongoUrl);
    try {
      const mail = await eventually('the confirmation mail', () => mongo.db('notifications').collection('mails').findOne({ to: 'cora@example.com' }));
      expect(mail).toMatchObject({ kind: 'notification', notification: { type: 'customer_confirmation', title: `Your confirmation code: ${requested.code}` } });
      expect(mail.notification.body).toContain(requested.code);
    } finally {
      await mongo.close();
    }

    const confirm = (code: string, token = c.conversationToken) => tp.api.post(conversationPath(team.teamId, c.id, token, '/confirmation'), { code }, { key: team.pk_test });
    expectError(await confirm('WRONG234'), 400, 'invalid_request_error', 'parameter_invalid', 'code');
    expectError(await confirm(''), 400, 'invalid_request_error', 'parameter_invalid', 'code');
    expect(expectOk(await staff().get(`/teams/${team.teamId}/customers/${ticket.customerId}`), 200).status).toBe('pending');
    // Any case, with a space: the visitor's typing.
    const typed = `${requested.code.slice(0, 4).toLowerCase()} ${requested.code.slice(4)}`;
    expect(expectOk(await confirm(typed), 200)).toEqual({ object: 'widget_confirmation', confirmed: true, customer: { name: 'Cora', email: 'cora@example.com' } });
    expect(expectOk(await staff().get(`/teams/${team.teamId}/customers/${ticket.customerId}`), 200).status).toBe('active');
    expect(expectOk(await tp.api.get(conversationPath(team.teamId, c.id, c.conversationToken), { key: team.pk_test }), 200).awaitingEmailConfirmation).toBe(false);
    expectError(await confirm(requested.code), 400, 'invalid_request_error', 'parameter_invalid', 'code');
    // Known now: the next conversation asks for nothing.
    const next = await startConversation(tp, team.teamId, team.pk_test, { name: 'Cora', email: 'cora@example.com', message: 'Again' });
    expect(next.awaitingEmailConfirmation).toBe(false);
  });

  it('spends the code after 5 wrong ones; another visitor\'s token confirms nothing', async () => {
    const c = await startConversation(tp, team.teamId, team.pk_test, { name: 'Gus', email: 'gus@example.com', message: 'Hi' });
    const other = await startConversation(tp, team.teamId, team.pk_test, { name: 'Ida', email: 'ida@example.com', message: 'Hi' });
    const { code } = await codeFor('gus@example.com');
    expectError(await tp.api.post(conversationPath(team.teamId, c.id, other.conversationToken, '/confirmation'), { code }, { key: team.pk_test }), 404, 'not_found_error', 'resource_not_found', 'conversationToken');
    const confirm = (value: string) => tp.api.post(conversationPath(team.teamId, c.id, c.conversationToken, '/confirmation'), { code: value }, { key: team.pk_test });
    for (let i = 0; i < 5; i++) expectError(await confirm('ZZZZZZZZ'), 400, 'invalid_request_error', 'parameter_invalid', 'code');
    expectError(await confirm(code), 400, 'invalid_request_error', 'parameter_invalid', 'code');
    const ticket = expectOk(await staff().get(`/teams/${team.teamId}/tickets/${c.id}`), 200);
    expect(expectOk(await staff().get(`/teams/${team.teamId}/customers/${ticket.customerId}`), 200).status).toBe('pending');
  });

  it('a customer the team already knew is not asked', async () => {
    await createCustomer(tp, 'Kim', 'kim@example.com', team.sk_test, `/teams/${team.teamId}`);
    const c = await startConversation(tp, team.teamId, team.pk_test, { name: 'Kim', email: 'kim@example.com', message: 'Hi' });
    expect(c.awaitingEmailConfirmation).toBe(false);
    expectError(await tp.api.post(conversationPath(team.teamId, c.id, c.conversationToken, '/confirmation'), { code: 'ABCDEFGH' }, { key: team.pk_test }), 400, 'invalid_request_error', 'parameter_invalid', 'code');
  });
});

describe('what a visitor may not do', () => {
  beforeAll(async () => {
    // Its own team: the visitors' limit counts per team and address (all tests run from 127.0.0.1).
    team = await tp.createTeam('Refusals Co');
  });

  it('a secret key is refused on every widget endpoint (403 secret_key_forbidden) and writes nothing', async () => {
    const c = await startConversation(tp, team.teamId, team.pk_test, { name: 'Key', email: 'key@example.com', message: 'Hi' });
    const before = await ticketCount();
    const calls = [
      tp.api.get(`${widgetPath(team.teamId)}/config`, { key: team.sk_test }),
      tp.api.post(`${widgetPath(team.teamId)}/conversations`, { name: 'A', email: 'a@example.com', message: 'x' }, { key: team.sk_test }),
      tp.api.get(conversationPath(team.teamId, c.id, c.conversationToken), { key: team.sk_live }),
      tp.api.post(conversationPath(team.teamId, c.id, c.conversationToken, '/messages'), { content: 'x' }, { key: team.sk_test }),
      tp.api.get(conversationPath(team.teamId, c.id, c.conversationToken, '/stream'), { key: team.sk_test }),
    ];
    for (const res of await Promise.all(calls)) expectError(res, 403, 'authorization_error', 'secret_key_forbidden');
    expect(await ticketCount()).toBe(before);
  });

  it('a wrong key, another team\'s key, the other partition\'s key', async () => {
    const body = { name: 'A', email: 'a@example.com', message: 'x' };
    expectError(await tp.api.post(`${widgetPath(team.teamId)}/conversations`, body, { key: 'pk_test_wrongwrongwrongwrong' }), 401, 'authentication_error', 'invalid_api_key');
    expectError(await tp.api.post(`${widgetPath(team.teamId)}/conversations`, body, { key: null }), 401, 'authentication_error', 'authentication_required');
    expectError(await tp.api.post(`${widgetPath(team.teamId)}/conversations`, body, { key: tp.otherTeam.pk_test }), 403, 'authorization_error', 'team_access_denied');
    const c = await startConversation(tp, team.teamId, team.pk_test, { name: 'Part', email: 'part@example.com', message: 'Hi' });
    // The live partition has no such conversation.
    expectError(await tp.api.get(conversationPath(team.teamId, c.id, c.conversationToken), { key: team.pk_live }), 404, 'not_found_error', 'resource_not_found', 'conversationToken');
  });

  it('another visitor\'s conversation token opens nothing (404, param conversationToken); a missing or malformed one is 400', async () => {
    const mine = await startConversation(tp, team.teamId, team.pk_test, { name: 'Mine', email: 'mine@example.com', message: 'Hi' });
    const theirs = await startConversation(tp, team.teamId, team.pk_test, { name: 'Theirs', email: 'theirs@example.com', message: 'Hi' });
    const wrong = conversationPath(team.teamId, theirs.id, mine.conversationToken);
    expectError(await tp.api.get(wrong, { key: team.pk_test }), 404, 'not_found_error', 'resource_not_found', 'conversationToken');
    expectError(await tp.api.post(conversationPath(team.teamId, theirs.id, mine.conversationToken, '/messages'), { content: 'sneaky' }, { key: team.pk_test }), 404, 'not_found_error', 'resource_not_found', 'conversationToken');
    expectError(await tp.api.get(conversationPath(team.teamId, theirs.id, mine.conversationToken, '/stream'), { key: team.pk_test }), 404, 'not_found_error', 'resource_not_found', 'conversationToken');
    expectError(await tp.api.get(`${widgetPath(team.teamId)}/conversations/${theirs.id}`, { key: team.pk_test }), 400, 'invalid_request_error', 'parameter_missing', 'conversationToken');
    expectError(await tp.api.get(conversationPath(team.teamId, theirs.id, 'wct_short'), { key: team.pk_test }), 400, 'invalid_request_error', 'parameter_invalid', 'conversationToken');
    expectError(await tp.api.get(conversationPath(team.teamId, 'not-an-id', mine.conversationToken), { key: team.pk_test }), 400, 'invalid_request_error', 'invalid_id_format', 'conversationId');
    // Their ticket got nothing from me.
    expect(expectOk(await staff().get(`/teams/${team.teamId}/tickets/${theirs.id}`), 200).messageCount).toBe(1);
  });

  it('bad bodies: missing, wrong type, unknown field, too long, oversize, not JSON; nothing half-written', async () => {
    const t = await tp.createTeam('Bad Bodies Co');
    const url = `${widgetPath(t.teamId)}/conversations`;
    const ok = { name: 'Bo', email: 'bo@example.com', message: 'Hello' };
    const post = (body: unknown) => tp.api.post(url, body, { key: t.pk_test });
    expectError(await post({ email: 'bo@example.com', message: 'x' }), 400, 'invalid_request_error', 'parameter_missing', 'name');
    expectError(await post({ name: 'Bo', message: 'x' }), 400, 'invalid_request_error', 'parameter_missing', 'email');
    expectError(await post({ name: 'Bo', email: 'bo@example.com' }), 400, 'invalid_request_error', 'parameter_missing', 'message');
    expectError(await post({ ...ok, email: 'not-an-email' }), 400, 'invalid_request_error', 'parameter_invalid', 'email');
    expectError(await post({ ...ok, message: 42 }), 400, 'invalid_request_error', 'parameter_invalid', 'message');
    expectError(await post({ ...ok, message: '   ' }), 400, 'invalid_request_error', 'parameter_invalid', 'message');
    expectError(await post({ ...ok, message: 'm'.repeat(5_001) }), 400, 'invalid_request_error', 'parameter_invalid', 'message');
    expectError(await post({ ...ok, priority: 'urgent' }), 400, 'invalid_request_error', 'parameter_invalid', 'priority');
    expectError(await post({ ...ok, message: 'm'.repeat(40_000) }), 413, 'invalid_request_error', 'parameter_invalid');
    expectError(await tp.api.request('POST', url, { key: t.pk_test, rawBody: '{"name":', headers: { 'content-type': 'application/json' } }), 400, 'invalid_request_error', 'invalid_json');
    const c = await startConversation(tp, t.teamId, t.pk_test, ok);
    const more = (body: unknown) => tp.api.post(conversationPath(t.teamId, c.id, c.conversationToken, '/messages'), body, { key: t.pk_test });
    expectError(await more({}), 400, 'invalid_request_error', 'parameter_missing', 'content');
    expectError(await more({ content: 'x', sender: 'agent' }), 400, 'invalid_request_error', 'parameter_invalid', 'sender');
    expectError(await more({ content: 'c'.repeat(5_001) }), 400, 'invalid_request_error', 'parameter_invalid', 'content');
    expect(await ticketCount(t)).toBe(1);
    expect(await customerCount(t)).toBe(1);
    expect(expectOk(await staff(t.sk_test).get(`/teams/${t.teamId}/tickets/${c.id}`), 200).messageCount).toBe(1);
  });
});

describe('origins and rates', () => {
  it('CORS for the allowed origins; another origin is refused at the request, readably (CORS headers on the 403), and writes nothing', async () => {
    const t = await tp.createTeam('Shop Co');
    expectOk(await tp.api.patch(`/teams/${t.teamId}/settings/widget`, { allowedOrigins: ['https://shop.example.com'] }, { key: t.sk_test }), 200);
    const url = `${tp.baseUrl}${widgetPath(t.teamId)}/conversations`;
    const preflight = (origin: string) =>
      fetch(url, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' } });

    const allowed = await preflight('https://shop.example.com');
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://shop.example.com');
    expect(allowed.headers.get('access-control-allow-methods')).toBe('GET, POST');
    expect(allowed.headers.get('access-control-allow-headers')).toBe('Authorization, Content-Type, Last-Event-ID');

    // The preflight of another origin passes (issue 34 item 11), so that the page can read the request's 403 below.
    const other = await preflight('https://evil.example.net');
    expect(other.status).toBe(204);
    expect(other.headers.get('access-control-allow-origin')).toBe('https://evil.example.net');

    const send = (origin: string) =>
      fetch(url, {
        method: 'POST',
        headers: { origin, authorization: `Bearer ${t.pk_test}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'O', email: 'o@example.com', message: 'from a page' }),
      });
    const refused = await send('https://evil.example.net');
    expect(refused.status).toBe(403);
    // Readable by the refused page (CORS headers), which the widget shows: why, and how to fix it.
    expect(refused.headers.get('access-control-allow-origin')).toBe('https://evil.example.net');
    expect(((await refused.json()) as any).error).toMatchObject({ type: 'authorization_error', code: 'origin_not_allowed', message: expect.stringContaining('allowedOrigins') });
    expect(await ticketCount(t)).toBe(0);

    const accepted = await send('https://shop.example.com');
    expect(accepted.status).toBe(201);
    expect(accepted.headers.get('access-control-allow-origin')).toBe('https://shop.example.com');
    expect(await ticketCount(t)).toBe(1);
    // The settings are the team's: the live partition's keys are held to the same origins.
    const live = await fetch(`${tp.baseUrl}${widgetPath(t.teamId)}/config`, { headers: { origin: 'https://evil.example.net', authorization: `Bearer ${t.pk_live}` } });
    expect(live.status).toBe(403);
    const liveOk = await fetch(`${tp.baseUrl}${widgetPath(t.teamId)}/config`, { headers: { origin: 'https://shop.example.com', authorization: `Bearer ${t.pk_live}` } });
    expect(liveOk.status).toBe(200);
    expect(liveOk.headers.get('access-control-allow-origin')).toBe('https://shop.example.com');
  });

  it('limits each visitor (20 a minute) beside the key; another visitor is not held up', async () => {
    const t = await tp.createTeam('Busy Co');
    const a = await startConversation(tp, t.teamId, t.pk_test, { name: 'A', email: 'a@example.com', message: 'Hi' });
    const b = await startConversation(tp, t.teamId, t.pk_test, { name: 'B', email: 'b@example.com', message: 'Hi' });
    const read = (c: any) => tp.api.get(conversationPath(t.teamId, c.id, c.conversationToken), { key: t.pk_test });
    for (let i = 0; i < 20; i++) expectOk(await read(a), 200);
    const limited = await read(a);
    expectError(limited, 429, 'rate_limit_error', 'rate_limit_exceeded');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.body.error.retryAfter ?? limited.body.retryAfter).toBeDefined();
    expectOk(await read(b), 200);
  });

  it('limits requests without a conversation token per address (60 a minute)', async () => {
    const t = await tp.createTeam('Crowd Co');
    const config = () => tp.api.get(`${widgetPath(t.teamId)}/config`, { key: t.pk_test });
    for (let i = 0; i < 60; i++) expectOk(await config(), 200);
    expectError(await config(), 429, 'rate_limit_error', 'rate_limit_exceeded');
    // Another team's widget is another count.
    expectOk(await tp.api.get(`${widgetPath(tp.otherTeam.teamId)}/config`, { key: tp.otherTeam.pk_test }), 200);
  });

  it('limits the key (the team\'s publishable limit) whatever the visitor', async () => {
    const t = await tp.createTeam('Small Plan Co');
    await tp.platform.gateway.admin.setTeamRateLimits(t.teamId, { publishablePerMinute: 3 });
    const config = () => tp.api.get(`${widgetPath(t.teamId)}/config`, { key: t.pk_test });
    for (let i = 0; i < 3; i++) expectOk(await config(), 200);
    const limited = await config();
    expectError(limited, 429, 'rate_limit_error', 'rate_limit_exceeded');
    expect(limited.headers.get('x-ratelimit-limit')).toBe('3');
  });
});

describe('the widget\'s script and look', () => {
  it('serves /widget/v1.js, cacheable, with an ETag', async () => {
    const origin = new URL(tp.baseUrl).origin;
    const res = await fetch(`${origin}/widget/v1.js`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('public, max-age=3600');
    const etag = res.headers.get('etag')!;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect((await res.text()).length).toBeGreaterThan(1_000);
    const again = await fetch(`${origin}/widget/v1.js`, { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    expect((await fetch(`${origin}/widget/v2.js`)).status).toBe(404);
  });

  it('GET /widget/config: the settings\' look, nothing else', async () => {
    const t = await tp.createTeam('Look Co');
    expect(expectOk(await tp.api.get(`${widgetPath(t.teamId)}/config`, { key: t.pk_live }), 200)).toEqual({
      object: 'widget_config', teamId: t.teamId, position: 'bottom-right', primaryColor: '#4f46e5', greeting: 'Hi! How can we help?',
    });
    expectOk(await tp.api.patch(`/teams/${t.teamId}/settings/widget`, { position: 'top-left', primaryColor: '#0a7d33', greeting: 'Hello there', allowedOrigins: ['https://a.example.com'] }, { key: t.sk_live }), 200);
    expect(expectOk(await tp.api.get(`${widgetPath(t.teamId)}/config`, { key: t.pk_live }), 200)).toEqual({
      object: 'widget_config', teamId: t.teamId, position: 'top-left', primaryColor: '#0a7d33', greeting: 'Hello there',
    });
  });
});
