import { commandsSent, envelope, startServiceHarness, withCommandMonitoring } from '@helpdesk/testing';
import { startGame } from '../src';
import { closeCustomerTicket, closeCustomerTickets, created, closedBy, customerTicket, DAY, joinMember, TEAM_A, TestClock, type Harness } from './helpers';

/**
 * What one paying close costs the game's database, and the shortcuts that make it cheaper: the
 * standings answer the quests' counts, the payout row is one upsert, the same snapshot is not written twice.
 */
let h: Harness;
beforeAll(async () => {
  // The harness of ./helpers, with the driver's command monitoring on (what the connection sends is counted).
  const clock = new TestClock(new Date('2026-11-24T10:00:00Z'));
  const started = await startServiceHarness((opts) => startGame({ ...opts, mongoUrl: withCommandMonitoring(opts.mongoUrl), clock }), { observe: ['game.#'] });
  h = Object.assign(started, { clock });
});
afterAll(() => h?.stop());

const live = { teamId: TEAM_A, mode: 'live' as const };

/** The commands the game's connection sends while `fn` runs (names, in order). */
const commandsOf = (fn: () => Promise<unknown>) => commandsSent(h.svc.conn, fn);

describe('a paying close', () => {
  it('is at most 11 store commands in the consumer, one transaction (18 before docs/adr/0044)', async () => {
    const ann = await joinMember(h, TEAM_A, 'Ann');
    await closeCustomerTicket(h, ann.id, live); // the player, first_ticket, the day's rows: made once
    const t = customerTicket(h);
    await created(h, t, live);
    const cmds = await commandsOf(() => closedBy(h, t, ann.id, live));
    // The outbox relay's own reads and writes (publishing the events) are not the consumer's.
    const consumer = cmds.filter((c) => !/ outbox$|outbox_lease/.test(c) || c.startsWith('insert'));
    expect(consumer.filter((c) => c === 'commitTransaction')).toHaveLength(1);
    expect(consumer.length).toBeLessThanOrEqual(11);
    // Quests are counted from the standings, not from the ledger.
    expect(consumer.filter((c) => c.startsWith('aggregate ledger'))).toEqual([]);
    expect((await h.api('GET', `/teams/{team}/game/player/${ann.id}`, { as: { mode: 'live' } })).body.data).toMatchObject({ xp: 40, stats: { ticketsClosed: 2 } });
  });

  it('closes delivered together are one transaction: 16 closes (and their ticket.updated) of 4 members in a few commands, not 11 each (docs/adr/0047)', async () => {
    const ms = [await joinMember(h, TEAM_A, 'Ida'), await joinMember(h, TEAM_A, 'Jo'), await joinMember(h, TEAM_A, 'Kim'), await joinMember(h, TEAM_A, 'Lou')];
    for (const m of ms) await closeCustomerTicket(h, m.id, live); // the players, first_ticket, the day's rows: made once
    const ts = Array.from({ length: 16 }, () => customerTicket(h));
    await h.publish(...ts.map((t) => envelope('ticket.created', { ticket: t }, live)));
    const events = ts.flatMap((t, i) => {
      const closed = { ...t, status: 'closed' as const, closedAt: h.clock.now().toISOString(), revision: (t.revision ?? 0) + 1 };
      const e = envelope('ticket.closed', { ticket: closed, previousStatus: t.status }, live);
      e.actor = { type: 'member', id: ms[i % 4]!.id };
      return [envelope('ticket.updated', { ticket: closed, changes: ['status'], previous: { status: t.status } }, live), e];
    });
    const cmds = await commandsOf(() => h.publish(...events));
    const consumer = cmds.filter((c) => !/ outbox$|outbox_lease/.test(c) || c.startsWith('insert'));
    expect(consumer.filter((c) => c === 'commitTransaction').length).toBeLessThanOrEqual(2);
    // One batch is 11 commands whatever its size (processed records, tickets read and written, payout rows, players read,
    // standings read, players written, ledger, standings, outbox, commit); the bus may deliver them as two.
    expect(consumer.length).toBeLessThanOrEqual(22);
    for (const m of ms) expect((await h.api('GET', `/teams/{team}/game/player/${m.id}`, { as: { mode: 'live' } })).body.data).toMatchObject({ stats: { ticketsClosed: 5 } });
  });

  it('the same snapshot twice (ticket.updated, then ticket.closed of one close) is written once', async () => {
    const bea = await joinMember(h, TEAM_A, 'Bea');
    const t = customerTicket(h);
    await created(h, t, live);
    const closed = { ...t, status: 'closed' as const, closedAt: h.clock.now().toISOString(), revision: (t.revision ?? 0) + 1 };
    await h.publish(envelope('ticket.updated', { ticket: closed, changes: ['status'], previous: { status: t.status } }, live));
    const e = envelope('ticket.closed', { ticket: closed, previousStatus: t.status }, live);
    e.actor = { type: 'member', id: bea.id };
    const cmds = await commandsOf(() => h.publish(e));
    expect(cmds.filter((c) => c === 'findAndModify tickets')).toEqual([]);
    expect(await h.svc.conn.collection('tickets').findOne({ _id: t.id as never })).toMatchObject({ status: 'closed', revision: closed.revision });
    expect(await h.svc.conn.collection('ticket_payouts').countDocuments({ ticketId: t.id })).toBe(1);
  });

  it('quest counts from the standings match the ledger: daily 3 and weekly 20 complete exactly once, on the right close', async () => {
    const cal = await joinMember(h, TEAM_A, 'Cal');
    const completed = () => h.events.filter((e) => e.type === 'game.quest.completed' && e.data.memberId === cal.id).map((e) => `${e.data.quest} ${e.data.periodId}`);
    const xpAwards = () => h.events.filter((e) => e.type === 'game.xp_awarded' && e.data.memberId === cal.id).length;
    await closeCustomerTickets(h, cal.id, live, 2);
    expect(completed()).toEqual([]);
    await closeCustomerTickets(h, cal.id, live, 1);
    expect(completed()).toEqual(['daily_close_3 2026-11-24']);
    await closeCustomerTickets(h, cal.id, live, 2);
    expect(completed()).toEqual(['daily_close_3 2026-11-24']);
    // Next day (same ISO week): the daily quest again at its third close; the weekly one at the 20th close of the week.
    h.clock.advance(DAY);
    await closeCustomerTickets(h, cal.id, live, 3);
    expect(completed()).toEqual(['daily_close_3 2026-11-24', 'daily_close_3 2026-11-25']);
    await closeCustomerTickets(h, cal.id, live, 11);
    expect(xpAwards()).toBe(19);
    expect(completed()).toHaveLength(2);
    await closeCustomerTickets(h, cal.id, live, 1);
    expect(completed()).toEqual(['daily_close_3 2026-11-24', 'daily_close_3 2026-11-25', 'weekly_close_20 2026-W48']);
    // What GET quests (counted from the ledger) shows agrees.
    const quests = (await h.api('GET', `/teams/{team}/game/player/${cal.id}/quests`, { as: { mode: 'live' } })).body.data;
    expect(quests.find((q: { key: string }) => q.key === 'daily_close_3')).toMatchObject({ progress: 3, completed: true });
    expect(quests.find((q: { key: string }) => q.key === 'weekly_close_20')).toMatchObject({ progress: 20, completed: true });
    const day = await h.svc.conn.collection('standings').findOne({ teamId: TEAM_A, mode: 'live', memberId: cal.id, periodId: '2026-11-25' });
    expect(day).toMatchObject({ tickets: 15 });
    h.clock.advance(-DAY);
  });

  it('a day row that begins after rows of its day were paid is counted from the ledger once (the deploy of day rows)', async () => {
    const dan = await joinMember(h, TEAM_A, 'Dan');
    await closeCustomerTickets(h, dan.id, live, 2);
    // As if the first two closes were paid by the code before day rows: their day row is not there.
    await h.svc.conn.collection('standings').deleteOne({ teamId: TEAM_A, mode: 'live', memberId: dan.id, periodId: '2026-11-24' });
    await closeCustomerTickets(h, dan.id, live, 1);
    expect(h.events.filter((e) => e.type === 'game.quest.completed' && e.data.memberId === dan.id).map((e) => e.data.quest)).toEqual(['daily_close_3']);
    expect(await h.svc.conn.collection('standings').findOne({ teamId: TEAM_A, mode: 'live', memberId: dan.id, periodId: '2026-11-24' })).toMatchObject({ tickets: 3 });
  });

  it('a ticket pays once when its close arrives twice at once, as a redelivery and as two events, and from two members', async () => {
    const eve = await joinMember(h, TEAM_A, 'Eve');
    const fox = await joinMember(h, TEAM_A, 'Fox');
    const t = customerTicket(h, { priority: 'urgent' });
    await created(h, t, live);
    const closed = { ...t, status: 'closed' as const, closedAt: h.clock.now().toISOString() };
    const close = (memberId: string) => {
      const e = envelope('ticket.closed', { ticket: closed, previousStatus: t.status }, live);
      e.actor = { type: 'member', id: memberId };
      return e;
    };
    const once = close(eve.id);
    // The same event twice (a redelivery), another close event of the ticket, and one by another member, all at once.
    await h.publish(once, { ...once }, close(eve.id), close(fox.id));
    const awards = h.events.filter((e) => e.type === 'game.xp_awarded' && e.data.ticketId === t.id);
    expect(awards).toHaveLength(1);
    expect(await h.svc.conn.collection('ticket_payouts').countDocuments({ ticketId: t.id })).toBe(1);
    const paid = awards[0]!.data.memberId as string;
    const players = await h.svc.conn.collection('players').find({ teamId: TEAM_A, mode: 'live', memberId: { $in: [eve.id, fox.id] } }).toArray();
    // The payee has the one payment; the other member, if a player at all, has none.
    expect(players.map((p) => ({ memberId: p.memberId, closed: p.stats.ticketsClosed, xp: p.seasonXp })).filter((p) => p.closed > 0)).toEqual([{ memberId: paid, closed: 1, xp: 50 }]);
  });

  it('the cached member and switches: a switched-off feature and a removal count from the very next close', async () => {
    const gus = await joinMember(h, TEAM_A, 'Gus');
    await closeCustomerTickets(h, gus.id, live, 2); // member and switches looked up (cached where the bus is process-local)
    // Quests switched off: the third close of the day completes nothing.
    const flags = { bossBattlesEnabled: true, achievementsEnabled: true, questsEnabled: false, leaderboardsEnabled: true, puzzlesEnabled: true, socialEnabled: true, cosmeticsEnabled: true, seasonsEnabled: true, skillTreesEnabled: true };
    await h.publish(envelope('feature_flags.updated', { featureFlags: flags, changes: ['questsEnabled'], previous: { questsEnabled: true } } as never, live));
    await closeCustomerTickets(h, gus.id, live, 1);
    expect(h.events.filter((e) => e.type === 'game.quest.completed' && e.data.memberId === gus.id)).toEqual([]);
    await h.publish(envelope('feature_flags.updated', { featureFlags: { ...flags, questsEnabled: true }, changes: ['questsEnabled'], previous: { questsEnabled: false } } as never, live));
    // Removed: the next close pays nothing.
    await h.publish(envelope('member.removed', { memberId: gus.id, member: gus }, live));
    await closeCustomerTickets(h, gus.id, live, 1);
    expect(h.events.filter((e) => e.type === 'game.xp_awarded' && e.data.memberId === gus.id)).toHaveLength(3);
  });
});
