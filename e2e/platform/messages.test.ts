import { startTestPlatform, type TestPlatform } from '../support/platform';
import { EventLog, MESSAGE_KEYS, MSG_ID, expectError, expectOk, settle } from './helpdesk-helpers';

let tp: TestPlatform;
let log: EventLog;
/** The team's owner: the test keys are theirs, so the agent messages below are theirs. */
let owner: { id: string; name: string };
const path = () => `${tp.teamPath}/tickets`;

beforeAll(async () => {
  tp = await startTestPlatform();
  log = await EventLog.start(tp);
  owner = expectOk(await tp.api.get(`${tp.teamPath}/members?role=owner`), 200)[0];
}, 60_000);
afterAll(async () => tp?.stop(), 60_000);

async function create(): Promise<any> {
  const t = expectOk(await tp.api.post(path(), { title: 'Thread', messages: [{ sender: 'customer', content: 'opening' }] }), 201);
  await tp.platform.ticketing.relay.drain();
  await log.waitFor(t.id, 1);
  return t;
}

describe('POST /tickets/{id}/messages', () => {
  it('adds a public agent message by default, bumps messageCount and updatedAt, keeps status, emits ticket.message_added', async () => {
    const t = await create();
    const res = await tp.api.post(`${path()}/${t.id}/messages`, { content: 'On it' });
    const m = expectOk(res, 201);
    expect(Object.keys(m).sort()).toEqual(MESSAGE_KEYS);
    // Written with the owner's key: the owner is its author, and its name shows.
    expect(m).toMatchObject({ ticketId: t.id, content: 'On it', sender: 'agent', senderName: owner.name, authorId: owner.id, isInternal: false });
    expect(m.id).toMatch(MSG_ID);
    const read = expectOk(await tp.api.get(`${path()}/${t.id}`), 200);
    expect(read).toMatchObject({ messageCount: 2, status: 'new', updatedAt: m.createdAt });
    expect(read.messages.map((x: any) => x.id)).toEqual([t.messages[0].id, m.id]);

    await tp.platform.ticketing.relay.drain();
    const events = await log.waitFor(t.id, 2);
    await settle(tp, log);
    expect(log.forTicket(t.id).map((e) => e.type)).toEqual(['ticket.created', 'ticket.message_added']);
    expect(events[1]).toMatchObject({ type: 'ticket.message_added', version: 1, teamId: tp.team.teamId, mode: 'test', requestId: res.body.meta.requestId });
    expect(events[1].data.ticket).toMatchObject({ id: t.id, messageCount: 2, updatedAt: m.createdAt });
    expect(events[1].data.message).toEqual(m);
  });

  it('messages come back in chronological order with sender, senderName and internal flags', async () => {
    const t = await create();
    const bodies = [
      { content: 'c1', sender: 'customer', senderName: 'Cust' },
      { content: 'n1', messageType: 'internal' },
      { content: 'n2', isInternal: true },
      { content: 'p1', messageType: 'public', isInternal: false },
      { content: 'n3', messageType: 'internal', isInternal: true },
      { content: 's1', sender: 'system' },
    ];
    for (const b of bodies) expectOk(await tp.api.post(`${path()}/${t.id}/messages`, b), 201);
    const list = expectOk(await tp.api.get(`${path()}/${t.id}/messages`), 200);
    expect(list.map((m: any) => [m.content, m.sender, m.senderName, m.isInternal, m.authorId])).toEqual([
      ['opening', 'customer', null, false, null],
      ['c1', 'customer', 'Cust', false, null],
      ['n1', 'agent', owner.name, true, owner.id],
      ['n2', 'agent', owner.name, true, owner.id],
      ['p1', 'agent', owner.name, false, owner.id],
      ['n3', 'agent', owner.name, true, owner.id],
      ['s1', 'system', null, false, null],
    ]);
    const created = list.map((m: any) => Date.parse(m.createdAt));
    expect([...created].sort((a, b) => a - b)).toEqual(created);
    expect(expectOk(await tp.api.get(`${path()}/${t.id}`), 200).messageCount).toBe(7);
    await tp.platform.ticketing.relay.drain();
    const events = await log.waitFor(t.id, 7);
    expect(events.slice(1).map((e) => [e.type, e.data.message.content, e.data.ticket.messageCount])).toEqual(
      bodies.map((b, i) => ['ticket.message_added', b.content, i + 2]),
    );
  });

  it('the author comes from the key: a member\'s key names the member, a key of no member none; a sent senderName wins; the body cannot set it', async () => {
    const t = await create();
    const operatorKey = (await tp.platform.gateway.admin.createKey({ teamId: tp.team.teamId, type: 'secret', mode: 'test', memberId: null })).key;
    const anonymous = expectOk(await tp.api.post(`${path()}/${t.id}/messages`, { content: 'From a script' }, { key: operatorKey }), 201);
    expect(anonymous).toMatchObject({ sender: 'agent', senderName: null, authorId: null });
    const signed = expectOk(await tp.api.post(`${path()}/${t.id}/messages`, { content: 'Signed', senderName: 'The support team' }), 201);
    expect(signed).toMatchObject({ senderName: 'The support team', authorId: owner.id });
    expectError(await tp.api.post(`${path()}/${t.id}/messages`, { content: 'x', authorId: owner.id }), 400, 'invalid_request_error', 'parameter_invalid', 'authorId');
    await tp.platform.ticketing.relay.drain();
    const events = await log.waitFor(t.id, 3);
    expect(events.slice(1).map((e) => [e.data.message.authorId, e.actor])).toEqual([
      [null, { type: 'key', id: expect.any(String) }],
      [owner.id, { type: 'member', id: owner.id }],
    ]);
  });

  it('paginates the thread (default page size 100)', async () => {
    const t = await create();
    const res = await tp.api.get(`${path()}/${t.id}/messages`);
    expect(res.body.meta.pagination).toMatchObject({ page: 1, pageSize: 100, total: 1, totalPages: 1 });
  });

  const bad: [string, unknown, string, string][] = [
    ['missing content', { sender: 'agent' }, 'parameter_missing', 'content'],
    ['blank content', { content: '   ' }, 'parameter_invalid', 'content'],
    ['content wrong type', { content: 12 }, 'parameter_invalid', 'content'],
    ['sender ai (creation only)', { content: 'x', sender: 'ai' }, 'parameter_invalid', 'sender'],
    ['unknown sender', { content: 'x', sender: 'robot' }, 'parameter_invalid', 'sender'],
    ['messageType internal with isInternal false', { content: 'x', messageType: 'internal', isInternal: false }, 'parameter_invalid', 'isInternal'],
    ['messageType public with isInternal true', { content: 'x', messageType: 'public', isInternal: true }, 'parameter_invalid', 'isInternal'],
    ['bad messageType', { content: 'x', messageType: 'secret' }, 'parameter_invalid', 'messageType'],
    ['isInternal wrong type', { content: 'x', isInternal: 'yes' }, 'parameter_invalid', 'isInternal'],
    ['unknown field', { content: 'x', colour: 'red' }, 'parameter_invalid', 'colour'],
    ['content over 65,536 characters', { content: 'c'.repeat(65_537) }, 'parameter_invalid', 'content'],
    ['senderName wrong type', { content: 'x', senderName: 5 }, 'parameter_invalid', 'senderName'],
  ];
  it.each(bad)('refuses %s with 400, stores nothing, emits nothing', async (_n, body, code, param) => {
    const t = await create();
    expectError(await tp.api.post(`${path()}/${t.id}/messages`, body), 400, 'invalid_request_error', code, param);
    const read = expectOk(await tp.api.get(`${path()}/${t.id}`), 200);
    expect(read.messageCount).toBe(1);
    expect(read.messages).toHaveLength(1);
    expect(read.updatedAt).toBe(t.updatedAt);
    await settle(tp, log);
    expect(log.forTicket(t.id)).toHaveLength(1);
  });

  it('GET messages refuses pageSize over 100 and unknown query parameters', async () => {
    const t = await create();
    expectError(await tp.api.get(`${path()}/${t.id}/messages`, { query: { pageSize: 101 } }), 400, 'invalid_request_error', 'parameter_invalid', 'pageSize');
    expectError(await tp.api.get(`${path()}/${t.id}/messages`, { query: { foo: 1 } }), 400, 'invalid_request_error', 'parameter_invalid', 'foo');
  });

  it('404 for messages of an unknown ticket (GET and POST)', async () => {
    const id = `tkt_${'Q'.repeat(24)}`;
    expectError(await tp.api.get(`${path()}/${id}/messages`), 404, 'not_found_error', 'resource_not_found', undefined);
    expectError(await tp.api.post(`${path()}/${id}/messages`, { content: 'x' }), 404, 'not_found_error', 'resource_not_found', undefined);
  });
});
