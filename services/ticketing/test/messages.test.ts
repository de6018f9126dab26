/** Messages over HTTP on the embedded MongoDB and the memory bus. */
import { messageSnapshotSchema, ticketSnapshotSchema } from '@helpdesk/contracts';
import { collectionOf } from '@helpdesk/kit';
import { mongo } from 'mongoose';
import { messageModel } from '../src/tickets/messages/model';
import { expectError, TEAM_A, useHarness, type Caller, type Harness } from './helpers';

let h: Harness;
const { api, createTicket: create, count } = useHarness((started) => (h = started));

const T = '/teams/{team}/tickets';
const post = (id: string, body: unknown, as?: Caller) => api('POST', `${T}/${id}/messages`, { body, as });

describe('POST /tickets/:id/messages', () => {
  test('adds an agent message by default, answers 201, bumps messageCount and updatedAt, emits ticket.message_added', async () => {
    const t = await create({ title: 'conversation', messages: [{ sender: 'customer', content: 'hello' }] });
    await new Promise((r) => setTimeout(r, 5));
    const r = await post(t.id, { content: 'Hi, how can I help?' });
    expect(r.status).toBe(201);
    const m = r.body.data;
    expect(m).toEqual({
      id: expect.stringMatching(/^msg_[A-Za-z0-9]{24}$/), ticketId: t.id, content: 'Hi, how can I help?', sender: 'agent',
      // The harness's key belongs to a member ticketing has not heard of: the author without a name.
      senderName: null, authorId: 'mem_member000001', isInternal: false, createdAt: expect.any(String),
    });
    const after = (await api('GET', `${T}/${t.id}`)).body.data;
    expect(after.messageCount).toBe(2);
    expect(after.updatedAt).toBe(m.createdAt);
    expect(after.updatedAt > t.updatedAt).toBe(true);
    expect(after.status).toBe('new');

    const events = await h.eventsOf(r.requestId);
    expect(events.map((e) => e.type)).toEqual(['ticket.message_added']);
    const data = events[0].data as any;
    expect(messageSnapshotSchema.parse(data.message)).toEqual(m);
    expect(ticketSnapshotSchema.parse(data.ticket)).toMatchObject({ id: t.id, messageCount: 2, updatedAt: m.createdAt, channel: 'api' });
  });

  test('the author: an agent message with a member\'s key records the member (authorId) and their name (senderName); everywhere the message shows', async () => {
    const memberId = 'mem_author00000001';
    await h.svc.conn.collection('member_refs').insertOne({ _id: memberId, teamId: TEAM_A, name: 'Ada Agent', removed: false } as never);
    const t = await create({ title: 'authored' });
    const as = { memberId };
    const reply = await post(t.id, { content: 'On it.' }, as);
    expect(reply.status).toBe(201);
    expect(reply.body.data).toMatchObject({ sender: 'agent', senderName: 'Ada Agent', authorId: memberId, isInternal: false });
    const note = (await post(t.id, { content: 'Checking the logs.', isInternal: true }, as)).body.data;
    expect(note).toMatchObject({ senderName: 'Ada Agent', authorId: memberId, isInternal: true });
    // A name sent wins (the name the customer sees); the author stays the member.
    const signed = (await post(t.id, { content: 'Best, the team', senderName: 'Support team' }, as)).body.data;
    expect(signed).toMatchObject({ senderName: 'Support team', authorId: memberId });
    // A customer's or the system's words have no member author, whoever relays them; nor a key of no member.
    const relayed = (await post(t.id, { content: 'Forwarded', sender: 'customer', senderName: 'Cy' }, as)).body.data;
    expect(relayed).toMatchObject({ sender: 'customer', senderName: 'Cy', authorId: null });
    expect((await post(t.id, { content: 'Auto', sender: 'system' }, as)).body.data).toMatchObject({ senderName: null, authorId: null });
    expect((await post(t.id, { content: 'From a script' }, { memberId: null })).body.data).toMatchObject({ sender: 'agent', senderName: null, authorId: null });

    const thread = (await api('GET', `${T}/${t.id}/messages`)).body.data.map((m: any) => [m.content, m.authorId, m.senderName]);
    expect(thread).toEqual([
      ['On it.', memberId, 'Ada Agent'],
      ['Checking the logs.', memberId, 'Ada Agent'],
      ['Best, the team', memberId, 'Support team'],
      ['Forwarded', null, 'Cy'],
      ['Auto', null, null],
      ['From a script', null, null],
    ]);
    expect((await api('GET', `${T}/${t.id}`)).body.data.messages.map((m: any) => m.authorId)).toEqual([memberId, memberId, memberId, null, null, null]);
    // The event's message names its author too.
    const [event] = await h.eventsOf(reply.requestId);
    expect(messageSnapshotSchema.parse((event.data as any).message)).toEqual(reply.body.data);
    expect((event.data as any).message.authorId).toBe(memberId);
    const stored = await collectionOf(messageModel(h.svc.conn)).findOne({ _id: reply.body.data.id } as never);
    expect(stored).toMatchObject({ authorId: memberId, senderName: 'Ada Agent' });
  });

  test('the author: an unknown field for it is refused (the author comes from the key, never from the body)', async () => {
    const t = await create({ title: 'no forging' });
    expectError(await post(t.id, { content: 'x', authorId: 'mem_someoneelse001' }), 400, 'parameter_invalid', 'authorId');
    expectError(await post(t.id, { content: 'x', senderName: 'n'.repeat(256) }), 400, 'parameter_invalid', 'senderName');
  });

  test('customer, system senders and a sender name', async () => {
    const t = await create({ title: 's' });
    const c = await post(t.id, { content: 'from customer', sender: 'customer', senderName: 'Ada' });
    expect(c.body.data).toMatchObject({ sender: 'customer', senderName: 'Ada' });
    const s = await post(t.id, { content: 'from system', sender: 'system' });
    expect(s.body.data.sender).toBe('system');
  });

  test('a first customer message on a new ticket does not change its status', async () => {
    const t = await create({ title: 'fresh' });
    const r = await post(t.id, { content: 'anyone?', sender: 'customer' });
    expect(r.status).toBe(201);
    expect((await api('GET', `${T}/${t.id}`)).body.data.status).toBe('new');
    const [e] = await h.eventsOf(r.requestId);
    expect((e.data as any).ticket.status).toBe('new');
  });

  test.each([
    [{ messageType: 'internal' }, true],
    [{ messageType: 'public' }, false],
    [{ isInternal: true }, true],
    [{ isInternal: false }, false],
    [{ messageType: 'internal', isInternal: true }, true],
    [{ messageType: 'public', isInternal: false }, false],
    [{}, false],
  ])('%j gives isInternal %s', async (flags, expected) => {
    const t = await create({ title: 'internal?' });
    const r = await post(t.id, { content: 'note', ...flags });
    expect(r.status).toBe(201);
    expect(r.body.data.isInternal).toBe(expected);
    expect((await api('GET', `${T}/${t.id}/messages`)).body.data[0].isInternal).toBe(expected);
  });

  test('refused messages write nothing and emit nothing', async () => {
    const t = await create({ title: 'refusals' });
    const bodies: [unknown, string, string][] = [
      [{ content: 'x', messageType: 'internal', isInternal: false }, 'parameter_invalid', 'isInternal'],
      [{ content: 'x', sender: 'ai' }, 'parameter_invalid', 'sender'],
      [{ sender: 'agent' }, 'parameter_missing', 'content'],
      [{ content: '' }, 'parameter_invalid', 'content'],
      [{ content: 'x', extra: 1 }, 'parameter_invalid', 'extra'],
    ];
    for (const [body, code, param] of bodies) {
      const r = await post(t.id, body);
      expectError(r, 400, code, param);
      expect(await h.eventsOf(r.requestId)).toEqual([]);
    }
    expect(await count('messages', { ticketId: t.id })).toBe(0);
    const after = (await api('GET', `${T}/${t.id}`)).body.data;
    expect(after.messageCount).toBe(0);
    expect(after.updatedAt).toBe(t.updatedAt);
  });

  test('unknown ticket is 404 and writes nothing', async () => {
    const before = await count('messages');
    const r = await post('tkt_doesnotexist000000000000', { content: 'x' });
    expectError(r, 404, 'resource_not_found');
    expect(await count('messages')).toBe(before);
    expect(await h.eventsOf(r.requestId)).toEqual([]);
  });

  test('a failure after the ticket was updated rolls the ticket back (one transaction)', async () => {
    const t = await create({ title: 'atomic message' });
    // The message is written with the unit's last command (docs/adr/0078): that command fails.
    const command = mongo.Db.prototype.command;
    const spy = jest.spyOn(mongo.Db.prototype, 'command').mockImplementation(function (this: mongo.Db, cmd, ...rest) {
      if ('bulkWrite' in cmd) throw new Error('boom');
      return command.call(this, cmd, ...rest);
    });
    const r = await post(t.id, { content: 'lost' });
    spy.mockRestore();
    expectError(r, 500, 'internal_error');
    expect(await count('messages', { ticketId: t.id })).toBe(0);
    expect((await api('GET', `${T}/${t.id}`)).body.data.messageCount).toBe(0);
    expect(await h.eventsOf(r.requestId)).toEqual([]);
  });

  test('concurrent messages on one ticket: every one counted, one event each, a distinct position each', async () => {
    const t = await create({ title: 'busy' });
    const replies = await Promise.all(Array.from({ length: 8 }, (_, i) => post(t.id, { content: `c${i}`, sender: i % 2 ? 'customer' : 'agent' })));
    expect(replies.map((r) => r.status)).toEqual(Array(8).fill(201));
    const after = (await api('GET', `${T}/${t.id}`)).body.data;
    expect(after.messageCount).toBe(8);
    expect(after.messages.map((m: any) => m.content).sort()).toEqual(Array.from({ length: 8 }, (_, i) => `c${i}`).sort());
    for (const r of replies) expect((await h.eventsOf(r.requestId)).map((e) => e.type)).toEqual(['ticket.message_added']);
    const counts = await Promise.all(replies.map(async (r) => ((await h.eventsOf(r.requestId))[0].data as any).ticket.messageCount));
    expect(counts.sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });

  test('an added message is found by search', async () => {
    const as: Caller = { teamId: '6f1c1f0e-0000-4000-8000-000000000003' };
    const t = await create({ title: 'quiet' }, as);
    const found = async () => (await api('GET', `${T}?search=XyLoPhOnE`, { as })).body.data.map((x: any) => x.id);
    expect(await found()).toEqual([]);
    await post(t.id, { content: 'my xylophone is out of tune' }, as);
    expect(await found()).toEqual([t.id]);
  });
});

describe('GET /tickets/:id/messages', () => {
  test('chronological, paginated, messages of that ticket only', async () => {
    const t = await create({ title: 'long thread', messages: [{ sender: 'customer', content: 'm1' }, { sender: 'ai', content: 'm2' }] });
    const other = await create({ title: 'other', messages: [{ sender: 'customer', content: 'elsewhere' }] });
    for (let i = 3; i <= 7; i++) await post(t.id, { content: `m${i}` });
    const r = await api('GET', `${T}/${t.id}/messages`);
    expect(r.status).toBe(200);
    expect(r.body.data.map((m: any) => m.content)).toEqual(['m1', 'm2', 'm3', 'm4', 'm5', 'm6', 'm7']);
    expect(r.body.meta.pagination).toEqual({ page: 1, pageSize: 100, total: 7, totalPages: 1, hasMore: false });
    const p2 = await api('GET', `${T}/${t.id}/messages?pageSize=3&page=2`);
    expect(p2.body.data.map((m: any) => m.content)).toEqual(['m4', 'm5', 'm6']);
    expect((await api('GET', `${T}/${other.id}/messages`)).body.data.map((m: any) => m.content)).toEqual(['elsewhere']);
  });

  test('a ticket without messages answers an empty list', async () => {
    const t = await create({ title: 'empty' });
    const r = await api('GET', `${T}/${t.id}/messages`);
    expect(r.body.data).toEqual([]);
  });

  test('unknown ticket is 404', async () => {
    expectError(await api('GET', `${T}/tkt_doesnotexist000000000000/messages`), 404, 'resource_not_found');
  });
});
