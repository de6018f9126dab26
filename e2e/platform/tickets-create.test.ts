import { startTestPlatform, type TestPlatform } from '../support/platform';
import { EventLog, ISO, createCustomer, MESSAGE_KEYS, MSG_ID, TICKET_KEYS, TKT_ID, expectError, expectOk, settle } from './helpdesk-helpers';

let tp: TestPlatform;
let log: EventLog;
const path = () => `${tp.teamPath}/tickets`;

beforeAll(async () => {
  tp = await startTestPlatform();
  log = await EventLog.start(tp);
}, 60_000);
afterAll(async () => tp?.stop(), 60_000);

describe('POST /tickets through the gateway', () => {
  it('creates a ticket with defaults, answers 201 with messages, stores it and emits one ticket.created', async () => {
    const res = await tp.api.post(path(), { title: 'Printer on fire' });
    const t = expectOk(res, 201);
    expect(Object.keys(t).sort()).toEqual([...TICKET_KEYS, 'messages'].sort());
    expect(t).toMatchObject({ title: 'Printer on fire', status: 'new', priority: 'normal', customerId: null, assignedTo: null, tags: [], notes: null, messageCount: 0, messages: [], metadata: {}, resolvedAt: null, closedAt: null });
    expect(t.id).toMatch(TKT_ID);
    expect(t.createdAt).toMatch(ISO);
    expect(t.updatedAt).toBe(t.createdAt);

    const read = expectOk(await tp.api.get(`${path()}/${t.id}`), 200);
    expect(read).toEqual(t);

    await tp.platform.ticketing.relay.drain();
    const events = await log.waitFor(t.id, 1);
    expect(events).toHaveLength(1);
    const e = events[0];
    expect(e).toMatchObject({ type: 'ticket.created', version: 1, teamId: tp.team.teamId, mode: 'test', requestId: res.body.meta.requestId });
    expect(e.data.ticket).toMatchObject({ id: t.id, title: 'Printer on fire', status: 'new', priority: 'normal', messageCount: 0, channel: 'api', createdAt: t.createdAt });
  });

  it('stores every create field: priority, customerId, messages of all four senders in order, tags, notes, metadata', async () => {
    const zed = await createCustomer(tp, 'Zed Zebra', 'zed@example.com');
    const body = {
      title: 'Full ticket',
      priority: 'urgent',
      customerId: zed.id,
      customerName: 'Zed Zebra',
      customerEmail: 'Zed@Example.com',
      messages: [
        { sender: 'customer', content: 'first' },
        { sender: 'agent', content: 'second', senderName: 'Ann' },
        { sender: 'system', content: 'third' },
        { sender: 'ai', content: 'fourth' },
      ],
      tags: ['billing', 'vip'],
      notes: 'handle with care',
      metadata: { plan: 'pro', seats: 5, nested: { a: 1 } },
    };
    const t = expectOk(await tp.api.post(path(), body), 201);
    expect(t).toMatchObject({ title: 'Full ticket', priority: 'urgent', customerId: zed.id, tags: ['billing', 'vip'], notes: 'handle with care', metadata: { plan: 'pro', seats: 5, nested: { a: 1 } }, messageCount: 4 });
    expect(t.customerName).toBeUndefined();
    expect(t.customerEmail).toBeUndefined();
    expect(t.messages.map((m: any) => [m.sender, m.content, m.senderName, m.isInternal, m.ticketId])).toEqual([
      ['customer', 'first', null, false, t.id],
      ['agent', 'second', 'Ann', false, t.id],
      ['system', 'third', null, false, t.id],
      ['ai', 'fourth', null, false, t.id],
    ]);
    for (const m of t.messages) {
      expect(Object.keys(m).sort()).toEqual(MESSAGE_KEYS);
      expect(m.id).toMatch(MSG_ID);
    }
    const read = expectOk(await tp.api.get(`${path()}/${t.id}`), 200);
    expect(read).toEqual(t);
    const thread = expectOk(await tp.api.get(`${path()}/${t.id}/messages`), 200);
    expect(thread.map((m: any) => m.content)).toEqual(['first', 'second', 'third', 'fourth']);

    await tp.platform.ticketing.relay.drain();
    const events = await log.waitFor(t.id, 1);
    await settle(tp, log);
    // initial messages are part of ticket.created: no ticket.message_added for them
    expect(log.forTicket(t.id).map((e) => e.type)).toEqual(['ticket.created']);
    expect(events[0].data.ticket).toMatchObject({ priority: 'urgent', customerId: zed.id, tags: ['billing', 'vip'], notes: 'handle with care', messageCount: 4 });
  });

  it('accepts a 255-character title and a title of 255 emoji (code points), and 50 metadata keys', async () => {
    const t1 = expectOk(await tp.api.post(path(), { title: 'x'.repeat(255) }), 201);
    expect(t1.title).toHaveLength(255);
    const emoji = '😀'.repeat(255);
    const t2 = expectOk(await tp.api.post(path(), { title: emoji }), 201);
    expect(t2.title).toBe(emoji);
    const metadata = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, i]));
    const t3 = expectOk(await tp.api.post(path(), { title: 'meta', metadata }), 201);
    expect(Object.keys(t3.metadata)).toHaveLength(50);
    expect(expectOk(await tp.api.get(`${path()}/${t3.id}`), 200).metadata).toEqual(metadata);
  });

  it('keeps the title as sent (not trimmed)', async () => {
    const t = expectOk(await tp.api.post(path(), { title: '  padded  ' }), 201);
    expect(t.title).toBe('  padded  ');
  });

  const bad: [string, unknown, string, string][] = [
    ['missing title', { priority: 'high' }, 'parameter_missing', 'title'],
    ['empty title', { title: '' }, 'parameter_invalid', 'title'],
    ['blank title', { title: '   ' }, 'parameter_invalid', 'title'],
    ['title of 256', { title: 'y'.repeat(256) }, 'parameter_invalid', 'title'],
    ['256 emoji title', { title: '😀'.repeat(256) }, 'parameter_invalid', 'title'],
    ['title wrong type', { title: 42 }, 'parameter_invalid', 'title'],
    ['bad priority', { title: 'a', priority: 'critical' }, 'parameter_invalid', 'priority'],
    ['priority wrong type', { title: 'a', priority: 3 }, 'parameter_invalid', 'priority'],
    ['unknown field', { title: 'a', colour: 'red' }, 'parameter_invalid', 'colour'],
    ['status is not accepted', { title: 'a', status: 'open' }, 'parameter_invalid', 'status'],
    ['assignedTo is not accepted', { title: 'a', assignedTo: 'mem_1' }, 'parameter_invalid', 'assignedTo'],
    ['customerId without prefix', { title: 'a', customerId: 'abc' }, 'parameter_invalid', 'customerId'],
    ['tags not an array', { title: 'a', tags: 'x' }, 'parameter_invalid', 'tags'],
    ['metadata not an object', { title: 'a', metadata: [1] }, 'parameter_invalid', 'metadata'],
    ['metadata of 51 keys', { title: 'a', metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i])) }, 'parameter_invalid', 'metadata'],
    ['messages not an array', { title: 'a', messages: 'hi' }, 'parameter_invalid', 'messages'],
    ['message with bad sender', { title: 'a', messages: [{ sender: 'bot', content: 'x' }] }, 'parameter_invalid', 'messages.0.sender'],
    ['message without content', { title: 'a', messages: [{ sender: 'customer' }] }, 'parameter_missing', 'messages.0.content'],
    ['metadata key starting with $', { title: 'a', metadata: { $x: 1 } }, 'parameter_invalid', 'metadata'],
    ['customerEmail not an email', { title: 'a', customerEmail: 'nope' }, 'parameter_invalid', 'customerEmail'],
    ['101 initial messages', { title: 'a', messages: Array.from({ length: 101 }, () => ({ sender: 'agent', content: 'x' })) }, 'parameter_invalid', 'messages'],
    ['notes over 10,000 characters', { title: 'a', notes: 'n'.repeat(10_001) }, 'parameter_invalid', 'notes'],
    ['message with disagreeing internal flags', { title: 'a', messages: [{ sender: 'agent', content: 'x', messageType: 'internal', isInternal: false }] }, 'parameter_invalid', 'messages.0.isInternal'],
  ];
  it.each(bad)('refuses %s with 400, writes nothing and emits nothing', async (_name, body, code, param) => {
    await settle(tp, log); // every earlier event is in (with AMQP they arrive asynchronously)
    const before = (await tp.api.get(path(), { query: { pageSize: 1 } })).body.meta.pagination.total;
    const eventsBefore = log.events.length;
    const res = await tp.api.post(path(), body);
    expectError(res, 400, 'invalid_request_error', code, param);
    await settle(tp, log);
    expect(log.events.filter((e) => e.requestId === res.body.error.request_id)).toEqual([]);
    const after = (await tp.api.get(path(), { query: { pageSize: 1 } })).body.meta.pagination.total;
    expect(after).toBe(before + 1); // only the marker
    expect(log.events.slice(eventsBefore).map((e) => [e.type, e.data.ticket.title])).toEqual([['ticket.created', 'marker']]);
  });

  it('refuses a JSON body that is not an object (invalid_json)', async () => {
    expectError(await tp.api.post(path(), [{ title: 'a' }]), 400, 'invalid_request_error', 'invalid_json', undefined);
    expectError(await tp.api.request('POST', path(), { rawBody: '"title"' }), 400, 'invalid_request_error', 'invalid_json', undefined);
  });

  it('trims tags and drops duplicates, keeping order', async () => {
    const t = expectOk(await tp.api.post(path(), { title: 'tags', tags: [' b ', 'a', 'b'] }), 201);
    expect(t.tags).toEqual(['b', 'a']);
  });

  it('accepts application/json with a charset and application/*+json', async () => {
    expectOk(await tp.api.request('POST', path(), { rawBody: '{"title":"cs"}', headers: { 'content-type': 'application/json; charset=utf-8' } }), 201);
    expectOk(await tp.api.request('POST', path(), { rawBody: '{"title":"vnd"}', headers: { 'content-type': 'application/vnd.api+json' } }), 201);
  });
});
