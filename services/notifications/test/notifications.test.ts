/** Notifications from events, and the four operations (embedded MongoDB, memory bus). */
import { newId } from '@helpdesk/kit';
import { notificationSnapshotSchema, type MemberSnapshot, type Partition } from '@helpdesk/contracts';
import {
  envelope,
  expectError,
  joinMember,
  memberFixture,
  messageFixture,
  startHarness,
  TEAM_A,
  TEAM_B,
  ticketFixture,
  type Caller,
  type Harness,
} from './helpers';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
}, 30_000);
afterAll(async () => {
  await h?.stop();
});

const N = '/teams/{team}/notifications';
const A = { teamId: TEAM_A };
const LIVE: Caller = { mode: 'live' };
const PUBLIC_KEYS = ['body', 'createdAt', 'id', 'isRead', 'memberId', 'object', 'readAt', 'ticketId', 'title', 'type'];

const list = async (userId: string, qs = '', as?: Caller) => {
  const r = await h.api('GET', `${N}?userId=${encodeURIComponent(userId)}${qs}`, { as });
  if (r.status !== 200) throw new Error(`list: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
};
const unread = async (userId: string, as?: Caller) => (await h.api('GET', `${N}/unread-count?userId=${userId}`, { as })).body.data;
/** `ticket.updated` assigning a ticket to a member. */
const assign = (memberId: string, opts: { id?: string; mode?: Partition; teamId?: string } = {}) => {
  const t = ticketFixture(null, { assignedTo: memberId });
  return envelope('ticket.updated', { ticket: t, changes: ['assignedTo'], previous: { assignedTo: null } }, { ...A, ...opts });
};

describe('notifications from events', () => {
  test('assigned: ticket.updated changing assignedTo notifies the new assignee, once, and emits notification.created', async () => {
    const ada = await joinMember(h, TEAM_A, 'Ada Lovelace');
    const e = assign(ada.id);
    await h.publish(e);
    await h.publish(e); // redelivered: same event id
    const body = await list(ada.userId);
    expect(body.data).toHaveLength(1);
    const n = body.data[0];
    expect(Object.keys(n).sort()).toEqual(PUBLIC_KEYS);
    expect(n).toMatchObject({
      object: 'notification', type: 'assigned', ticketId: e.data.ticket.id, memberId: ada.id, isRead: false, readAt: null, body: e.data.ticket.title,
    });
    expect(n.id).toMatch(/^ntf_[A-Za-z0-9]{24}$/);
    expect(n.title).toContain(e.data.ticket.id);
    expect(body.meta.pagination).toEqual({ page: 1, pageSize: 20, total: 1, totalPages: 1, hasMore: false });
    const created = h.events.filter((x) => x.type === 'notification.created' && x.data.notification.id === n.id);
    expect(created).toHaveLength(1);
    expect(created[0]).toMatchObject({ teamId: TEAM_A, mode: 'test', data: { sourceEventId: e.id } });
    expect(notificationSnapshotSchema.parse(created[0].data.notification)).toEqual(n);
  });

  test('ticket.updated without an assignedTo change, or unassigning, or assigning a non-member notifies nobody', async () => {
    const bo = await joinMember(h, TEAM_A, 'Bo Diddley');
    const t = ticketFixture(null, { assignedTo: bo.id });
    await h.publish(envelope('ticket.updated', { ticket: t, changes: ['title'], previous: { title: 'old' } }, A));
    await h.publish(envelope('ticket.updated', { ticket: { ...t, assignedTo: null }, changes: ['assignedTo'], previous: { assignedTo: bo.id } }, A));
    await h.publish(assign('mem_nobodyhere0001'));
    expect((await list(bo.id)).data).toEqual([]);
  });

  test('customer_replied: a customer\'s public message on an assigned ticket notifies the assignee; agents\' messages do not', async () => {
    const cy = await joinMember(h, TEAM_A, 'Cy Twombly');
    const t = ticketFixture(null, { assignedTo: cy.id });
    const reply = messageFixture(t.id, 'It still does not work.\nSecond line', { sender: 'customer', senderName: 'Pat' });
    await h.publish(envelope('ticket.message_added', { ticket: t, message: reply }, A));
    await h.publish(envelope('ticket.message_added', { ticket: t, message: messageFixture(t.id, 'We are on it', { sender: 'agent' }) }, A));
    const unassigned = ticketFixture(null);
    await h.publish(envelope('ticket.message_added', { ticket: unassigned, message: messageFixture(unassigned.id, 'hi', { sender: 'customer' }) }, A));
    const { data } = await list(cy.userId);
    expect(data).toHaveLength(1);
    expect(data[0]).toMatchObject({ type: 'customer_replied', ticketId: t.id, body: 'It still does not work.', title: `Pat replied on ${t.title}` });
  });

  test('mentioned: an internal note naming @email or @NameWithoutSpaces notifies those members, once each', async () => {
    const di = await joinMember(h, TEAM_A, 'Di Rivera');
    const ed = await joinMember(h, TEAM_A, 'Ed Wood');
    const fay = await joinMember(h, TEAM_A, 'Fay Wray');
    const t = ticketFixture(null);
    const note = `@DiRivera and @${ed.email.toUpperCase()}, please look (cc @dirivera). Not fay: x@FayWray, @nobody.`;
    await h.publish(envelope('ticket.message_added', { ticket: t, message: messageFixture(t.id, note, { sender: 'agent', senderName: 'Gil', isInternal: true }) }, A));
    for (const m of [di, ed]) {
      const { data } = await list(m.id);
      expect(data).toHaveLength(1);
      expect(data[0]).toMatchObject({ type: 'mentioned', ticketId: t.id, title: `Gil mentioned you on ${t.title}` });
    }
    expect((await list(fay.id)).data).toEqual([]);
    // a public message's @ is not a mention
    await h.publish(envelope('ticket.message_added', { ticket: t, message: messageFixture(t.id, '@FayWray hello', { sender: 'agent', isInternal: false }) }, A));
    expect((await list(fay.id)).data).toEqual([]);
  });

  test('invite_accepted notifies the member who sent the invite; an invite sent by a key alone notifies nobody', async () => {
    const gil = await joinMember(h, TEAM_A, 'Gil Evans');
    const invite = {
      id: newId('invite'), email: 'new@example.com', role: 'agent' as const, status: 'accepted' as const, invitedBy: gil.id,
      message: { status: 'sent' as const, at: null, error: null }, expiresAt: new Date().toISOString(), createdAt: new Date().toISOString(),
    };
    await h.publish(envelope('invite.accepted', { invite, memberId: newId('member') }, A));
    await h.publish(envelope('invite.accepted', { invite: { ...invite, id: newId('invite'), invitedBy: null }, memberId: newId('member') }, A));
    const { data } = await list(gil.id);
    expect(data).toHaveLength(1);
    expect(data[0]).toMatchObject({ type: 'invite_accepted', ticketId: null, title: 'new@example.com accepted your invitation' });
  });

  test('a removed member gets no more notifications and is not a userId any more; a late event does not bring them back', async () => {
    const hal = await joinMember(h, TEAM_A, 'Hal Foster');
    await h.publish(envelope('member.removed', { memberId: hal.id, member: hal }, A));
    await h.publish(envelope('member.role_changed', { member: { ...hal, role: 'admin' }, previousRole: 'agent' }, A));
    await h.publish(assign(hal.id));
    expectError(await h.api('GET', `${N}?userId=${hal.userId}`), 404, 'resource_not_found', 'userId');
    expect(await h.svc.conn.collection('notifications').countDocuments({ memberId: hal.id })).toBe(0);
  });

  test('members are per team, notifications per partition: a live event makes a notification only live keys see', async () => {
    const ida = await joinMember(h, TEAM_A, 'Ida Noddack', 'live'); // joined with a live key: still the team's member
    await h.publish(assign(ida.id, { mode: 'live' }));
    expect((await list(ida.id, '', LIVE)).data).toHaveLength(1);
    expect((await list(ida.id)).data).toEqual([]);
    expect(await unread(ida.id)).toEqual({ unreadCount: 0, truncated: false });
  });
});

describe('GET /notifications', () => {
  let jo: MemberSnapshot;
  beforeAll(async () => {
    jo = await joinMember(h, TEAM_A, 'Jo Baker');
    for (let i = 0; i < 3; i++) await h.publish(assign(jo.id));
    const t = ticketFixture(null, { assignedTo: jo.id });
    await h.publish(envelope('ticket.message_added', { ticket: t, message: messageFixture(t.id, 'hello', { sender: 'customer' }) }, A));
  });

  test('newest first; by userId (UUID, any case) or member id; filters isRead and type; pages', async () => {
    const all = (await list(jo.userId)).data;
    expect(all.map((n: any) => n.type)).toEqual(['customer_replied', 'assigned', 'assigned', 'assigned']);
    expect((await list(jo.userId.toUpperCase())).data).toEqual(all);
    expect((await list(jo.id)).data).toEqual(all);
    expect((await list(jo.id, '&type=assigned')).data).toHaveLength(3);
    expect((await list(jo.id, '&isRead=true')).data).toEqual([]);
    expect((await list(jo.id, '&isRead=false')).data).toEqual(all);
    const page2 = await list(jo.id, '&pageSize=3&page=2');
    expect(page2.data).toEqual(all.slice(3));
    expect(page2.meta.pagination).toEqual({ page: 2, pageSize: 3, total: 4, totalPages: 2, hasMore: false });
  });

  test('bad inputs: missing, malformed or unknown userId; bad isRead, type, page; unknown parameter', async () => {
    // Without userId: the key's own member; a key of no member must name one.
    expectError(await h.api('GET', N, { as: { memberId: null } }), 400, 'parameter_missing', 'userId');
    expect((await h.api('GET', N, { as: { memberId: jo.id } })).body.data).toEqual((await list(jo.id)).data);
    expectError(await h.api('GET', N), 404, 'resource_not_found', 'userId'); // the key's member is unknown here
    expectError(await h.api('GET', `${N}?userId=bob`), 400, 'parameter_invalid', 'userId');
    expectError(await h.api('GET', `${N}?userId=${crypto.randomUUID()}`), 404, 'resource_not_found', 'userId');
    expectError(await h.api('GET', `${N}?userId=mem_doesnotexist0001`), 404, 'resource_not_found', 'userId');
    expectError(await h.api('GET', `${N}?userId=${jo.id}&isRead=yes`), 400, 'parameter_invalid', 'isRead');
    expectError(await h.api('GET', `${N}?userId=${jo.id}&type=spaceship`), 400, 'parameter_invalid', 'type');
    expectError(await h.api('GET', `${N}?userId=${jo.id}&pageSize=101`), 400, 'parameter_invalid', 'pageSize');
    expectError(await h.api('GET', `${N}?userId=${jo.id}&unread=true`), 400, 'parameter_invalid', 'unread');
  });

  test('another team\'s member is a 404; a publishable key is refused', async () => {
    expectError(await h.api('GET', `${N}?userId=${jo.id}`, { as: { teamId: TEAM_B } }), 404, 'resource_not_found', 'userId');
    expectError(await h.api('GET', `${N}?userId=${jo.id}`, { as: { keyType: 'publishable' } }), 403, 'publishable_key_forbidden');
    expectError(await h.api('GET', `/teams/${TEAM_B}/notifications?userId=${jo.id}`), 403, 'team_access_denied');
  });
});

describe('unread count and marking read', () => {
  test('unread-count counts up to the cap of 1000, then says truncated', async () => {
    const kay = await joinMember(h, TEAM_A, 'Kay Kyser');
    expect(await unread(kay.userId)).toEqual({ unreadCount: 0, truncated: false });
    await h.publish(assign(kay.id));
    expect(await unread(kay.userId)).toEqual({ unreadCount: 1, truncated: false });
    const now = new Date();
    const rows = (n: number) =>
      Array.from({ length: n }, (_, i) => ({
        _id: newId('notification'), teamId: TEAM_A, mode: 'test', memberId: kay.id, type: 'assigned', title: 't', body: 'b',
        ticketId: null, isRead: false, readAt: null, sourceEventId: `evt_bulk${i}`, createdAt: now,
      }));
    await h.svc.conn.collection('notifications').insertMany(rows(999) as any[]);
    expect(await unread(kay.userId)).toEqual({ unreadCount: 1000, truncated: false });
    await h.svc.conn.collection('notifications').insertMany(rows(1).map((r) => ({ ...r, sourceEventId: 'evt_bulk_last' })) as any[]);
    expect(await unread(kay.userId)).toEqual({ unreadCount: 1000, truncated: true });
    expect(await unread(kay.userId, LIVE)).toEqual({ unreadCount: 0, truncated: false });
    const r = await h.api('POST', `${N}/mark-all-read`, { body: { userId: kay.userId } });
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({ markedRead: 1001 });
    expect(await unread(kay.userId)).toEqual({ unreadCount: 0, truncated: false });
  }, 120_000); // 1,001 rows written, counted and marked: slow on a loaded machine

  test('mark-all-read marks the member\'s unread ones in the key\'s partition only, emits notification.all_read; again: 0', async () => {
    const lu = await joinMember(h, TEAM_A, 'Lu Watters');
    const mo = await joinMember(h, TEAM_A, 'Mo Tucker');
    await h.publish(assign(lu.id), assign(lu.id), assign(mo.id), assign(lu.id, { mode: 'live' }));
    const r = await h.api('POST', `${N}/mark-all-read`, { body: { userId: lu.id } });
    expect(r.body.data).toEqual({ markedRead: 2 });
    const read = (await list(lu.id)).data;
    expect(read.every((n: any) => n.isRead && typeof n.readAt === 'string')).toBe(true);
    expect(await unread(lu.id, LIVE)).toEqual({ unreadCount: 1, truncated: false });
    expect(await unread(mo.id)).toEqual({ unreadCount: 1, truncated: false });
    expect((await h.eventsOf(r.requestId)).map((e) => [e.type, e.data])).toEqual([['notification.all_read', { memberId: lu.id, markedRead: 2 }]]);
    const again = await h.api('POST', `${N}/mark-all-read`, { body: { userId: lu.id } });
    expect(again.body.data).toEqual({ markedRead: 0 });
    expect(await h.eventsOf(again.requestId)).toEqual([]);
  });

  test('mark-all-read bad inputs', async () => {
    const M = `${N}/mark-all-read`;
    expectError(await h.api('POST', M, { body: {}, as: { memberId: null } }), 400, 'parameter_missing', 'userId');
    expectError(await h.api('POST', M, { body: { userId: 42 } }), 400, 'parameter_invalid', 'userId');
    expectError(await h.api('POST', M, { body: { userId: 'mem_nobody00000001' } }), 404, 'resource_not_found', 'userId');
    const mo = await joinMember(h, TEAM_A, 'Ned Rorem');
    expectError(await h.api('POST', M, { body: { userId: mo.id, all: true } }), 400, 'parameter_invalid', 'all');
    expectError(await h.api('POST', M, { rawBody: '{"userId":' }), 400, 'invalid_json');
    expectError(await h.api('POST', M, { body: { userId: mo.id }, as: { teamId: TEAM_B } }), 404, 'resource_not_found', 'userId');
    expectError(await h.api('POST', M, { body: { userId: mo.id }, as: { keyType: 'publishable' } }), 403, 'publishable_key_write');
  });

  test('mark one read: sets readAt once, emits notification.read; again answers it unchanged', async () => {
    const oz = await joinMember(h, TEAM_A, 'Oz Noy');
    await h.publish(assign(oz.id), assign(oz.id));
    const [first, second] = (await list(oz.id)).data;
    const r = await h.api('POST', `${N}/${first.id}/read`, { body: { userId: oz.userId } });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ ...first, isRead: true, readAt: expect.any(String) });
    expect((await h.eventsOf(r.requestId)).map((e) => e.type)).toEqual(['notification.read']);
    const again = await h.api('POST', `${N}/${first.id}/read`, { body: { userId: oz.id } });
    expect(again.body.data).toEqual(r.body.data);
    expect(await h.eventsOf(again.requestId)).toEqual([]);
    expect((await list(oz.id, '&isRead=false')).data).toEqual([second]);
    expect(await unread(oz.id)).toEqual({ unreadCount: 1, truncated: false });
  });

  test('mark one read: another member\'s, another partition\'s, another team\'s or a missing notification is a 404; bad ids and bodies 400', async () => {
    const pi = await joinMember(h, TEAM_A, 'Pi Ramirez');
    const qu = await joinMember(h, TEAM_A, 'Qu Lin');
    await h.publish(assign(pi.id));
    const [n] = (await list(pi.id)).data;
    const R = `${N}/${n.id}/read`;
    expectError(await h.api('POST', R, { body: { userId: qu.id } }), 404, 'resource_not_found');
    expectError(await h.api('POST', R, { body: { userId: pi.id }, as: LIVE }), 404, 'resource_not_found');
    // the same person is a member of team B too (same account id, another member id)
    const inB = memberFixture('Pi Ramirez', { userId: pi.userId });
    await h.publish(envelope('member.joined', { member: inB, via: 'invite', inviteId: null }, { teamId: TEAM_B }));
    expectError(await h.api('POST', R, { body: { userId: pi.userId }, as: { teamId: TEAM_B } }), 404, 'resource_not_found');
    expect((await list(pi.userId, '', { teamId: TEAM_B })).data).toEqual([]);
    expectError(await h.api('POST', `${N}/ntf_doesnotexist00000000001/read`, { body: { userId: pi.id } }), 404, 'resource_not_found');
    expectError(await h.api('POST', `${N}/tkt_abc/read`, { body: { userId: pi.id } }), 400, 'invalid_id_format', 'notificationId');
    expectError(await h.api('POST', R, { body: {}, as: { memberId: null } }), 400, 'parameter_missing', 'userId');
    expectError(await h.api('POST', R, { body: { userId: pi.id, isRead: false } }), 400, 'parameter_invalid', 'isRead');
    expectError(await h.api('POST', R, { body: { userId: pi.id }, as: { keyType: 'publishable' } }), 403, 'publishable_key_write');
    expect((await list(pi.id)).data).toEqual([n]); // nothing half-written
  });
});
