/** Tickets over HTTP on the embedded MongoDB and the memory bus: every rule, event and scope. */
import { ticketSnapshotSchema } from '@helpdesk/contracts';
import { mongo } from 'mongoose';
import { messageModel } from '../src/tickets/messages/model';
import { call, expectError, TEAM_A, TEAM_B, useHarness, type Caller, type Harness } from './helpers';

let h: Harness;
const { api, createTicket: create, count } = useHarness((started) => (h = started));

const T = '/teams/{team}/tickets';
const PUBLIC_KEYS = [
  'assignedTo', 'channel', 'closedAt', 'createdAt', 'customFields', 'customerId', 'id', 'mergedInto', 'messageCount', 'metadata',
  'notes', 'openedBy', 'priority', 'resolvedAt', 'sla', 'status', 'tags', 'title', 'updatedAt',
];

describe('POST /tickets', () => {
  test('creates a new ticket with defaults and answers 201 in the envelope', async () => {
    const r = await api('POST', T, { body: { title: 'Printer on fire' } });
    expect(r.status).toBe(201);
    expect(r.body.success).toBe(true);
    expect(r.body.meta.requestId).toBe(r.requestId);
    expect(r.headers.get('x-svc-request-id')).toBe(r.requestId);
    const t = r.body.data;
    expect(Object.keys(t).sort()).toEqual([...PUBLIC_KEYS, 'messages'].sort());
    expect(t).toMatchObject({
      title: 'Printer on fire', status: 'new', priority: 'normal', customerId: null, assignedTo: null, tags: [],
      notes: null, messageCount: 0, metadata: {}, resolvedAt: null, closedAt: null, messages: [],
    });
    expect(t.id).toMatch(/^tkt_[A-Za-z0-9]{24}$/);
    expect(t.createdAt).toBe(t.updatedAt);
    expect(new Date(t.createdAt).toISOString()).toBe(t.createdAt);
  });

  test('keeps every given field, messages oldest first with all four senders, and emits one ticket.created', async () => {
    const ada = h.customers.put(TEAM_A, 'test', { id: 'cus_abcdefgh12345678', name: 'Ada Lovelace', email: 'ada@example.com' });
    const body = {
      title: 'Refund', priority: 'urgent', customerId: ada.id, customerName: 'Ada Lovelace',
      customerEmail: 'ADA@example.com', tags: ['billing', 'vip', 'billing'], notes: 'call back', metadata: { orderId: 42, nested: { a: 1 }, gone: null },
      messages: [
        { sender: 'customer', content: 'I want my money back' },
        { sender: 'ai', content: 'Suggested: refund policy' },
        { sender: 'system', content: 'auto-assigned', senderName: 'Robot' },
        { sender: 'agent', content: 'looking', messageType: 'internal' },
        { sender: 'agent', content: 'public reply', isInternal: false, messageType: 'public' },
      ],
    };
    const r = await api('POST', T, { body });
    expect(r.status).toBe(201);
    const t = r.body.data;
    expect(t).toMatchObject({
      priority: 'urgent', customerId: 'cus_abcdefgh12345678', tags: ['billing', 'vip'], notes: 'call back',
      metadata: { orderId: 42, nested: { a: 1 } }, messageCount: 5,
    });
    expect(t).not.toHaveProperty('customerName');
    expect(t.messages.map((m: any) => [m.sender, m.content, m.isInternal, m.senderName])).toEqual([
      ['customer', 'I want my money back', false, null],
      ['ai', 'Suggested: refund policy', false, null],
      ['system', 'auto-assigned', false, 'Robot'],
      ['agent', 'looking', true, null],
      ['agent', 'public reply', false, null],
    ]);
    for (const m of t.messages) {
      expect(Object.keys(m).sort()).toEqual(['authorId', 'content', 'createdAt', 'id', 'isInternal', 'sender', 'senderName', 'ticketId']);
      expect(m.id).toMatch(/^msg_/);
      expect(m.ticketId).toBe(t.id);
    }
    const got = await api('GET', `${T}/${t.id}`);
    expect(got.body.data.messages.map((m: any) => m.content)).toEqual(body.messages.map((m) => m.content));

    const events = await h.eventsOf(r.requestId);
    expect(events.map((e) => e.type)).toEqual(['ticket.created']);
    const e = events[0];
    expect(e).toMatchObject({ teamId: TEAM_A, mode: 'test', version: 1, actor: { type: 'member', id: 'mem_member000001' } });
    expect(e.id).toMatch(/^evt_/);
    const snap = ticketSnapshotSchema.parse((e.data as any).ticket);
    expect(snap).toEqual({ ...Object.fromEntries(Object.entries(t).filter(([k]) => k !== 'messages')), channel: 'api', revision: 0 });
  });

  test('a title of exactly 255 characters (emoji count as one) is accepted', async () => {
    const title = '🎫'.repeat(255);
    const t = await create({ title });
    expect(t.title).toBe(title);
  });

  test('metadata with 50 keys is accepted', async () => {
    const metadata = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, i]));
    const t = await create({ title: 'meta', metadata });
    expect(Object.keys(t.metadata)).toHaveLength(50);
  });

  test('a key without memberId is the actor', async () => {
    const r = await api('POST', T, { body: { title: 'by key' }, as: { memberId: null } });
    const [e] = await h.eventsOf(r.requestId);
    expect(e.actor).toEqual({ type: 'key', id: 'key_testkey0001' });
  });

  test('a refused create writes nothing and emits nothing', async () => {
    const before = await count('tickets');
    const msgsBefore = await count('messages');
    const r = await api('POST', T, {
      body: { title: 'x', messages: [{ sender: 'agent', content: 'a', messageType: 'internal', isInternal: false }] },
    });
    expectError(r, 400, 'parameter_invalid', 'messages.0.isInternal');
    expect(await count('tickets')).toBe(before);
    expect(await count('messages')).toBe(msgsBefore);
    expect(await h.eventsOf(r.requestId)).toEqual([]);
  });
});

describe('tenancy: team and partition come from the token', () => {
  let id: string;
  beforeAll(async () => {
    id = (await create({ title: 'scoped', messages: [{ sender: 'customer', content: 'secret' }] })).id;
  });
  const others: [string, Caller][] = [
    ['other team', { teamId: TEAM_B }],
    ['other partition', { mode: 'live' }],
    ['other team, other partition', { teamId: TEAM_B, mode: 'live' }],
  ];
  test.each(others)('%s: GET, PATCH, DELETE and messages are 404', async (_name, as) => {
    expectError(await api('GET', `${T}/${id}`, { as }), 404, 'resource_not_found');
    expectError(await api('PATCH', `${T}/${id}`, { as, body: { title: 'stolen' } }), 404, 'resource_not_found');
    expectError(await api('DELETE', `${T}/${id}`, { as }), 404, 'resource_not_found');
    expectError(await api('GET', `${T}/${id}/messages`, { as }), 404, 'resource_not_found');
    expectError(await api('POST', `${T}/${id}/messages`, { as, body: { content: 'hi' } }), 404, 'resource_not_found');
    const list = await api('GET', `${T}?pageSize=100`, { as });
    expect(list.body.data.map((t: any) => t.id)).not.toContain(id);
    const still = await api('GET', `${T}/${id}`);
    expect(still.body.data).toMatchObject({ title: 'scoped', messageCount: 1 });
  });

  test("a URL naming another team than the token's is refused, as the gateway refuses it", async () => {
    const r = await call(h.url, 'GET', `/teams/${TEAM_B}/tickets/${id}`, {});
    expect(r.status).toBe(403);
    expect(r.body.error.code).toBe('team_access_denied');
  });

  test('the same data set in the live partition and another team stays apart', async () => {
    const live = await create({ title: 'live one' }, { mode: 'live' });
    const b = await create({ title: 'team b one' }, { teamId: TEAM_B });
    const ids = async (as: Caller) => (await api('GET', `${T}?pageSize=100`, { as })).body.data.map((t: any) => t.id);
    expect(await ids({ mode: 'live' })).toEqual([live.id]);
    expect(await ids({ teamId: TEAM_B })).toEqual([b.id]);
    expect(await ids({})).not.toContain(live.id);
  });

  test('unknown id is 404', async () => {
    expectError(await api('GET', `${T}/tkt_doesnotexist000000000000`), 404, 'resource_not_found');
  });
});

describe('GET /tickets', () => {
  const as: Caller = { teamId: '6f1c1f0e-0000-4000-8000-000000000001' };
  const list = (qs = '') => api('GET', `${T}${qs ? `?${qs}` : ''}`, { as });
  const ids = async (qs = '') => {
    const r = await list(qs);
    expect(r.status).toBe(200);
    return r.body.data.map((t: any) => t.title);
  };
  beforeAll(async () => {
    h.customers.put(as.teamId!, 'test', { id: 'cus_aaaaaaaa11111111', name: 'Grace Hopper', email: 'grace@example.com' });
    h.customers.put(as.teamId!, 'test', { id: 'cus_bbbbbbbb22222222', name: 'Barbara Liskov', email: 'barbara@example.com' });
    await create({ title: 'Alpha login broken', priority: 'high', customerId: 'cus_aaaaaaaa11111111' }, as);
    await create({ title: 'Beta invoice', priority: 'low', customerName: 'Alan Turing', messages: [{ sender: 'customer', content: 'The PDF says 1.5x' }] }, as);
    await create({ title: 'Gamma (urgent?) [x]', priority: 'urgent', customerId: 'cus_bbbbbbbb22222222' }, as);
    await create({ title: 'Delta', customerId: 'cus_aaaaaaaa11111111' }, as);
  });

  test('newest first, without messages, with pagination in meta', async () => {
    const r = await list();
    expect(r.body.data.map((t: any) => t.title)).toEqual(['Delta', 'Gamma (urgent?) [x]', 'Beta invoice', 'Alpha login broken']);
    for (const t of r.body.data) expect(Object.keys(t).sort()).toEqual(PUBLIC_KEYS);
    expect(r.body.meta.pagination).toEqual({ page: 1, pageSize: 20, total: 4, totalPages: 1, hasMore: false });
  });

  test('pages', async () => {
    const p1 = await list('pageSize=3');
    expect(p1.body.meta.pagination).toEqual({ page: 1, pageSize: 3, total: 4, totalPages: 2, hasMore: true });
    const p2 = await list('pageSize=3&page=2');
    expect(p2.body.data.map((t: any) => t.title)).toEqual(['Alpha login broken']);
    expect(p2.body.meta.pagination.hasMore).toBe(false);
    const p9 = await list('page=9');
    expect(p9.body.data).toEqual([]);
    expect(p9.body.meta.pagination.total).toBe(4);
  });

  test('status, priority, customerId filters', async () => {
    expect(await ids('priority=high')).toEqual(['Alpha login broken']);
    expect(await ids('customerId=cus_aaaaaaaa11111111')).toEqual(['Delta', 'Alpha login broken']);
    expect(await ids('status=new')).toHaveLength(4);
    expect(await ids('status=closed')).toEqual([]);
    expect(await ids('status=new&priority=urgent&customerId=cus_bbbbbbbb22222222')).toEqual(['Gamma (urgent?) [x]']);
  });

  test('assignedTo filter', async () => {
    // Assignment arrives with the automation features; set it in the database as they will.
    const [alpha] = (await list('priority=high')).body.data;
    await h.svc.conn.collection('tickets').updateOne({ _id: alpha.id } as any, { $set: { assignedTo: 'mem_agent0000001' } });
    expect(await ids('assignedTo=mem_agent0000001')).toEqual(['Alpha login broken']);
    expect(await ids('assignedTo=mem_someoneelse01')).toEqual([]);
    const r = await list('assignedTo=mem_agent0000001');
    expect(r.body.data[0].assignedTo).toBe('mem_agent0000001');
  });

  test('search over title, customer name and message content, case-insensitive, regex characters literal', async () => {
    expect(await ids('search=LOGIN')).toEqual(['Alpha login broken']);
    expect(await ids('search=turing')).toEqual(['Beta invoice']);
    expect(await ids('search=pdf%20says')).toEqual(['Beta invoice']);
    expect(await ids('search=1.5x')).toEqual(['Beta invoice']);
    expect(await ids('search=1%2A5x')).toEqual([]);
    expect(await ids('search=(urgent%3F)%20%5Bx%5D')).toEqual(['Gamma (urgent?) [x]']);
    expect(await ids('search=.*')).toEqual([]);
    expect(await ids('search=')).toHaveLength(4);
  });

  test('expand[]=customer embeds the customer as the projection knows it', async () => {
    const r = await list('expand[]=customer');
    const by = Object.fromEntries(r.body.data.map((t: any) => [t.title, t.customer]));
    const summary = { status: 'active', sentiment: 'neutral', tags: [] };
    expect(by['Alpha login broken']).toEqual({ id: 'cus_aaaaaaaa11111111', name: 'Grace Hopper', email: 'grace@example.com', ...summary });
    expect(by['Beta invoice']).toEqual({ id: expect.stringMatching(/^cus_/), name: 'Alan Turing', email: null, ...summary });
    expect(by['Gamma (urgent?) [x]']).toEqual({ id: 'cus_bbbbbbbb22222222', name: 'Barbara Liskov', email: 'barbara@example.com', ...summary });
    expect(by['Delta']).toEqual(by['Alpha login broken']);
    expect(r.body.data[0]).not.toHaveProperty('messages');
  });

  test('expand[]=messages and expand= (string or repeated) both work', async () => {
    for (const qs of ['expand[]=messages&expand[]=customer', 'expand=messages,customer', 'expand=messages&expand=customer']) {
      const r = await list(qs);
      const beta = r.body.data.find((t: any) => t.title === 'Beta invoice');
      expect(beta.messages.map((m: any) => m.content)).toEqual(['The PDF says 1.5x']);
      expect(beta.customer.name).toBe('Alan Turing');
      expect(r.body.data.find((t: any) => t.title === 'Delta').messages).toEqual([]);
    }
  });
});

describe('GET /tickets/:id', () => {
  test('includes messages in chronological order, including later ones', async () => {
    const t = await create({ title: 'thread', messages: [{ sender: 'customer', content: 'one' }, { sender: 'agent', content: 'two' }] });
    for (const content of ['three', 'four', 'five']) {
      expect((await api('POST', `${T}/${t.id}/messages`, { body: { content } })).status).toBe(201);
    }
    const r = await api('GET', `${T}/${t.id}`);
    expect(r.status).toBe(200);
    expect(r.body.data.messages.map((m: any) => m.content)).toEqual(['one', 'two', 'three', 'four', 'five']);
    expect(r.body.data.messageCount).toBe(5);
    expect(r.body.data).not.toHaveProperty('customer');
    const withCustomer = await api('GET', `${T}/${t.id}?expand[]=customer`);
    expect(withCustomer.body.data.customer).toBeNull();
    expect(withCustomer.body.data.messages).toHaveLength(5);
  });
});

describe('PATCH /tickets/:id', () => {
  const patch = (id: string, body: unknown, as?: Caller) => api('PATCH', `${T}/${id}`, { body, as });

  test('changes only the given fields and emits ticket.updated with changes and previous values', async () => {
    const t = await create({ title: 'old', priority: 'low', tags: ['a'], notes: 'n', metadata: { keep: 1, drop: 2, change: 3 } });
    await new Promise((r) => setTimeout(r, 5));
    const r = await patch(t.id, { title: 'new', priority: 'high', tags: ['b', 'c'], notes: null, metadata: { drop: null, change: 'x', add: true } });
    expect(r.status).toBe(200);
    const u = r.body.data;
    expect(u).toMatchObject({
      id: t.id, title: 'new', priority: 'high', tags: ['b', 'c'], notes: null, status: 'new',
      metadata: { keep: 1, change: 'x', add: true }, createdAt: t.createdAt,
    });
    expect(u.metadata).not.toHaveProperty('drop');
    expect(u.updatedAt > t.updatedAt).toBe(true);
    expect(u).not.toHaveProperty('messages');
    const events = await h.eventsOf(r.requestId);
    expect(events.map((e) => e.type)).toEqual(['ticket.updated']);
    const data = events[0].data as any;
    expect([...data.changes].sort()).toEqual(['metadata', 'notes', 'priority', 'tags', 'title']);
    expect(data.previous).toEqual({ title: 'old', priority: 'low', tags: ['a'], notes: 'n', metadata: { keep: 1, drop: 2, change: 3 } });
    expect(data.ticket).toMatchObject({ title: 'new', channel: 'api', updatedAt: u.updatedAt });
    expect((await api('GET', `${T}/${t.id}`)).body.data).toMatchObject({ title: 'new', tags: ['b', 'c'] });
  });

  test('an empty body changes nothing and emits nothing; so does resending the current values', async () => {
    const t = await create({ title: 'same', tags: ['x'], metadata: { a: 1 } });
    for (const body of [{}, { title: 'same', tags: ['x'], priority: 'normal', notes: null, status: 'new', metadata: { a: 1, b: null } }]) {
      const r = await patch(t.id, body);
      expect(r.status).toBe(200);
      expect(r.body.data).toEqual(Object.fromEntries(Object.entries(t).filter(([k]) => k !== 'messages')));
      expect(await h.eventsOf(r.requestId)).toEqual([]);
    }
  });

  test('status merged is refused with param status; nothing changes, no event', async () => {
    const t = await create({ title: 'm' });
    const r = await patch(t.id, { status: 'merged', title: 'changed' });
    expectError(r, 400, 'parameter_invalid', 'status');
    expect(await h.eventsOf(r.requestId)).toEqual([]);
    expect((await api('GET', `${T}/${t.id}`)).body.data).toMatchObject({ status: 'new', title: 'm' });
  });

  test('resolved sets resolvedAt and closedAt and emits ticket.updated then ticket.closed', async () => {
    const t = await create({ title: 'to resolve' });
    const open = await patch(t.id, { status: 'open' });
    expect(open.body.data).toMatchObject({ status: 'open', resolvedAt: null, closedAt: null });
    expect((await h.eventsOf(open.requestId)).map((e) => e.type)).toEqual(['ticket.updated']);

    const r = await patch(t.id, { status: 'resolved' });
    const u = r.body.data;
    expect(u.status).toBe('resolved');
    expect(u.resolvedAt).toBe(u.updatedAt);
    expect(u.closedAt).toBe(u.updatedAt);
    const events = await h.eventsOf(r.requestId);
    expect(events.map((e) => e.type)).toEqual(['ticket.updated', 'ticket.closed']);
    expect([...(events[0].data as any).changes].sort()).toEqual(['closedAt', 'resolvedAt', 'status']);
    expect((events[0].data as any).previous).toEqual({ status: 'open', resolvedAt: null, closedAt: null });
    expect(events[1].data).toMatchObject({ previousStatus: 'open', ticket: { status: 'resolved', closedAt: u.closedAt } });
  });

  test('closed sets closedAt only; resolved → closed closes again; reopening clears both', async () => {
    const t = await create({ title: 'to close' });
    const c = await patch(t.id, { status: 'closed' });
    expect(c.body.data).toMatchObject({ status: 'closed', resolvedAt: null });
    expect(c.body.data.closedAt).toBe(c.body.data.updatedAt);
    expect((await h.eventsOf(c.requestId)).map((e) => e.type)).toEqual(['ticket.updated', 'ticket.closed']);

    const again = await patch(t.id, { status: 'closed' });
    expect(await h.eventsOf(again.requestId)).toEqual([]);

    const reopened = await patch(t.id, { status: 'pending' });
    expect(reopened.body.data).toMatchObject({ status: 'pending', resolvedAt: null, closedAt: null });
    const ev = await h.eventsOf(reopened.requestId);
    expect(ev.map((e) => e.type)).toEqual(['ticket.updated']);
    expect((ev[0].data as any).previous).toEqual({ status: 'closed', closedAt: c.body.data.closedAt });

    const resolved = await patch(t.id, { status: 'resolved' });
    await new Promise((r) => setTimeout(r, 5));
    const closed = await patch(t.id, { status: 'closed' });
    expect(closed.body.data.resolvedAt).toBe(resolved.body.data.resolvedAt);
    expect(closed.body.data.closedAt > resolved.body.data.closedAt).toBe(true);
    const ce = await h.eventsOf(closed.requestId);
    expect(ce.map((e) => e.type)).toEqual(['ticket.updated', 'ticket.closed']);
    expect((ce[1].data as any).previousStatus).toBe('resolved');
  });

  test('a title over 255 is refused unless it is the ticket\'s current (older, longer) title', async () => {
    const t = await create({ title: 'short' });
    const long = 'L'.repeat(300);
    expectError(await patch(t.id, { title: 'x'.repeat(256) }), 400, 'parameter_invalid', 'title');
    // A ticket from email/widget may carry a longer title: simulate one.
    await h.svc.conn.collection('tickets').updateOne({ _id: t.id } as any, { $set: { title: long } });
    const same = await patch(t.id, { title: long, priority: 'high' });
    expect(same.status).toBe(200);
    expect(same.body.data).toMatchObject({ title: long, priority: 'high' });
    expect((await h.eventsOf(same.requestId))[0].data).toMatchObject({ changes: ['priority'] });
    expectError(await patch(t.id, { title: `${long}!` }), 400, 'parameter_invalid', 'title');
    const fixed = await patch(t.id, { title: 'fits now' });
    expect(fixed.body.data.title).toBe('fits now');
  });

  test('metadata over 50 keys after the merge is refused and nothing changes', async () => {
    const metadata = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, i]));
    const t = await create({ title: 'full', metadata });
    const r = await patch(t.id, { metadata: { extra: 1 }, title: 'renamed' });
    expectError(r, 400, 'parameter_invalid', 'metadata');
    expect(await h.eventsOf(r.requestId)).toEqual([]);
    expect((await api('GET', `${T}/${t.id}`)).body.data.title).toBe('full');
    const swap = await patch(t.id, { metadata: { extra: 1, k0: null } });
    expect(swap.status).toBe(200);
    expect(Object.keys(swap.body.data.metadata)).toHaveLength(50);
  });

  test('a renamed ticket is found by its new title, not its old one, and keeps its message search', async () => {
    const as: Caller = { teamId: '6f1c1f0e-0000-4000-8000-000000000002' };
    const t = await create({ title: 'Zebra', customerName: 'Okapi', messages: [{ sender: 'customer', content: 'giraffe' }] }, as);
    await patch(t.id, { title: 'Lion' }, as);
    const found = async (q: string) => (await api('GET', `${T}?search=${q}`, { as })).body.data.length;
    expect(await found('zebra')).toBe(0);
    expect(await found('lion')).toBe(1);
    expect(await found('okapi')).toBe(1);
    expect(await found('giraffe')).toBe(1);
  });

  test('concurrent PATCHes and messages lose nothing: metadata merges, search text and counts all add up', async () => {
    const as: Caller = { teamId: '6f1c1f0e-0000-4000-8000-000000000004' };
    const t = await create({ title: 'Racing' }, as);
    const writes = [
      ...Array.from({ length: 6 }, (_, i) => patch(t.id, { metadata: { [`k${i}`]: i } }, as)),
      patch(t.id, { title: 'Renamed racer' }, as),
      ...Array.from({ length: 4 }, (_, i) => api('POST', `${T}/${t.id}/messages`, { body: { content: `word${i}` }, as })),
    ];
    const replies = await Promise.all(writes);
    expect(replies.map((r) => r.status)).toEqual([...Array(7).fill(200), ...Array(4).fill(201)]);
    const after = (await api('GET', `${T}/${t.id}`, { as })).body.data;
    expect(after.metadata).toEqual({ k0: 0, k1: 1, k2: 2, k3: 3, k4: 4, k5: 5 });
    expect(after.title).toBe('Renamed racer');
    expect(after.messageCount).toBe(4);
    const found = async (q: string) => (await api('GET', `${T}?search=${q}`, { as })).body.data.length;
    expect(await found('renamed')).toBe(1);
    expect(await found('racing')).toBe(0);
    for (let i = 0; i < 4; i++) expect(await found(`word${i}`)).toBe(1);
    for (const r of replies) expect(await h.eventsOf(r.requestId)).toHaveLength(1);
  });

  test('unknown ticket is 404 with no event', async () => {
    const r = await patch('tkt_doesnotexist000000000000', { title: 'x' });
    expectError(r, 404, 'resource_not_found');
    expect(await h.eventsOf(r.requestId)).toEqual([]);
  });
});

describe('DELETE /tickets/:id', () => {
  test('removes the ticket and all its messages and emits ticket.deleted', async () => {
    h.customers.put(TEAM_A, 'test', { id: 'cus_cccccccc33333333', name: 'Leaving', email: 'leaving@example.com' });
    const t = await create({ title: 'bye', customerId: 'cus_cccccccc33333333', messages: [{ sender: 'customer', content: 'a' }, { sender: 'agent', content: 'b' }] });
    const other = await create({ title: 'stays', messages: [{ sender: 'customer', content: 'c' }] });
    const r = await api('DELETE', `${T}/${t.id}`);
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({ id: t.id, deleted: true });
    expectError(await api('GET', `${T}/${t.id}`), 404, 'resource_not_found');
    expectError(await api('GET', `${T}/${t.id}/messages`), 404, 'resource_not_found');
    expect(await count('messages', { ticketId: t.id })).toBe(0);
    expect(await count('messages', { ticketId: other.id })).toBe(1);
    const events = await h.eventsOf(r.requestId);
    expect(events.map((e) => e.type)).toEqual(['ticket.deleted']);
    expect(events[0].data).toMatchObject({ ticketId: t.id, customerId: 'cus_cccccccc33333333', ticket: { id: t.id, messageCount: 2 } });

    const again = await api('DELETE', `${T}/${t.id}`);
    expectError(again, 404, 'resource_not_found');
    expect(await h.eventsOf(again.requestId)).toEqual([]);
  });
});

describe('atomicity', () => {
  test('a create whose messages fail leaves no ticket and no event', async () => {
    const before = await count('tickets');
    // The message is written with the unit's last command (docs/adr/0078): that command fails.
    const command = mongo.Db.prototype.command;
    const spy = jest.spyOn(mongo.Db.prototype, 'command').mockImplementation(function (this: mongo.Db, cmd, ...rest) {
      if ('bulkWrite' in cmd) throw new Error('disk on fire');
      return command.call(this, cmd, ...rest);
    });
    const r = await api('POST', T, { body: { title: 'half', messages: [{ sender: 'customer', content: 'x' }] } });
    spy.mockRestore();
    expectError(r, 500, 'internal_error');
    expect(await count('tickets')).toBe(before);
    expect(await h.eventsOf(r.requestId)).toEqual([]);
    expect(await count('outbox', { 'envelope.requestId': r.requestId })).toBe(0);
  });

  test('a failure inside the transaction leaves neither the change nor its event', async () => {
    const t = await create({ title: 'atomic' });
    const Messages = messageModel(h.svc.conn);
    const spy = jest.spyOn(Messages, 'deleteMany').mockImplementationOnce(() => {
      throw new Error('disk on fire');
    });
    const r = await api('DELETE', `${T}/${t.id}`);
    spy.mockRestore();
    expectError(r, 500, 'internal_error');
    expect(await h.eventsOf(r.requestId)).toEqual([]);
    expect((await api('GET', `${T}/${t.id}`)).status).toBe(200);
    expect(await count('outbox', { 'envelope.requestId': r.requestId })).toBe(0);
  });
});
