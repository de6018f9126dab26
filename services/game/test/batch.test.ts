import type { EventEnvelope, TicketSnapshot } from '@helpdesk/contracts';
import { customerTicket, DAY, envelope, joinMember, slaOf, startHarness, TEAM_A, TEAM_B, type Harness, type Where } from './helpers';

/**
 * Ticket events delivered together are applied in one transaction (tickets/batch.ts, docs/adr/0047).
 * A batch pays exactly what the same closes paid one at a time would: the same player, ledger,
 * standings and events, in the same order, each event in its causing close's scope.
 */
let h: Harness;
beforeAll(async () => {
  // A day before a season ends (2026-Q3), so the second day's closes roll the season over.
  h = await startHarness(new Date('2026-09-30T10:00:00Z'));
});
afterAll(() => h?.stop());

const live: Where = { teamId: TEAM_A, mode: 'live' };

/** Tickets of varied priorities and SLA tiers, created "now". */
const variedTickets = (n: number): TicketSnapshot[] =>
  Array.from({ length: n }, (_, i) =>
    customerTicket(h, { priority: (['low', 'normal', 'high', 'urgent'] as const)[i % 4], ...(i % 5 === 2 ? { sla: slaOf('gold') } : i % 5 === 4 ? { sla: slaOf('silver') } : {}) }),
  );

const closeOf = (t: TicketSnapshot, memberId: string, where: Where) => {
  const closed = { ...t, status: 'closed' as const, closedAt: h.clock.now().toISOString(), revision: (t.revision ?? 0) + 1 };
  const e = envelope('ticket.closed', { ticket: closed, previousStatus: t.status }, where);
  e.actor = { type: 'member', id: memberId };
  return e;
};

async function createAll(tickets: TicketSnapshot[], where: Where) {
  await h.publish(...tickets.map((t) => envelope('ticket.created', { ticket: t }, where)));
}

/** Everything the game holds of a member in a partition, without ids and times. */
async function stateOf(memberId: string, where: Where) {
  const scope = { teamId: where.teamId, mode: where.mode ?? 'test', memberId };
  const c = (name: string) => h.svc.conn.collection(name);
  const p = await c('players').findOne(scope);
  return {
    player: p && {
      seasonId: p.seasonId, seasonXp: p.seasonXp, lifetimeXp: p.lifetimeXp, gold: p.gold, streak: p.streak, stats: p.stats,
      skillPointsEarned: p.skillPointsEarned, skillPointsAvailable: p.skillPointsAvailable, achievements: p.achievements.map((a: { key: string }) => a.key), pastSeasons: p.pastSeasons,
    },
    ledger: (await c('ledger').find(scope).sort({ _id: 1 }).toArray()).map((r) => `${r.kind} ${r.xp} ${r.gold} ${r.tickets} ${r.dayId} ${r.weekId} ${r.seasonId}`),
    standings: (await c('standings').find(scope).sort({ periodId: 1 }).toArray()).map((r) => `${r.periodId} ${r.xp} ${r.tickets} ${r.damage}`),
    payouts: await c('ticket_payouts').countDocuments(scope),
  };
}

/** The game events about a member, in order, without what differs between two members (ids). */
const eventsOf = (memberId: string) =>
  h.events
    .filter((e) => (e.data as { memberId?: string }).memberId === memberId)
    .map((e) => {
      const { memberId: _m, ticketId: _t, ...rest } = e.data as Record<string, unknown>;
      return { type: e.type, data: rest };
    });

const batchStats = () => h.svc.rules.batches.stats();

describe('a batch of closes', () => {
  it('pays exactly what the same closes paid one by one: XP, level-ups, streak, season rollover, quests on the right close, achievements, events in order', async () => {
    const one = await joinMember(h, TEAM_A, 'One');
    const many = await joinMember(h, TEAM_A, 'Many');
    // Day 1 (the season's last day): one close each, one by one.
    for (const m of [one, many]) {
      const [t] = variedTickets(1);
      await createAll([t!], live);
      await h.publish(closeOf(t!, m.id, live));
    }
    // Day 2, a new season, the same ISO week: 22 closes each (daily quest at the 3rd, weekly at the 19th,
    // ticket_10 at the 10th, gold_sla, level-ups). `one`'s one at a time, `many`'s all at once.
    h.clock.advance(DAY);
    const oneTickets = variedTickets(22);
    const manyTickets = oneTickets.map((t) => ({ ...t, id: customerTicket(h).id }));
    await createAll([...oneTickets, ...manyTickets], live);
    for (const t of oneTickets) await h.publish(closeOf(t, one.id, live));
    const before = batchStats();
    const closes = manyTickets.map((t) => closeOf(t, many.id, live));
    await h.publish(...closes);
    const after = batchStats();
    // They were applied together (the bus delivers up to 32 at once): at most two batches, none paid again one by one.
    expect(after.batches - before.batches).toBeLessThanOrEqual(2);
    expect(after.largest).toBeGreaterThanOrEqual(11);
    expect(after.split).toBe(before.split);

    const [a, b] = [await stateOf(one.id, live), await stateOf(many.id, live)];
    expect(b).toEqual(a);
    expect(b.player).toMatchObject({ seasonId: '2026-Q4', streak: { current: 2, max: 2 }, stats: { ticketsClosed: 23 }, pastSeasons: [{ seasonId: '2026-Q3' }] });
    expect(b.player!.achievements).toEqual(expect.arrayContaining(['first_ticket', 'ticket_10', 'gold_sla']));
    expect(eventsOf(many.id)).toEqual(eventsOf(one.id));
    const types = eventsOf(many.id).map((e) => e.type);
    expect(types.filter((t) => t === 'game.season.rolled_over')).toHaveLength(1);
    expect(types.filter((t) => t === 'game.quest.completed')).toHaveLength(2);
    expect(types.filter((t) => t === 'game.level_up').length).toBeGreaterThan(0);

    // Each event names its causing close: the close's requestId, team and partition, the system as actor.
    const byTicket = new Map(closes.map((e) => [e.data.ticket.id, e]));
    const ofMany = h.events.filter((e) => (e.data as { memberId?: string }).memberId === many.id && e.type === 'game.xp_awarded');
    for (const e of ofMany.slice(1)) {
      const cause = byTicket.get((e.data as { ticketId: string }).ticketId)!;
      expect({ requestId: e.requestId, teamId: e.teamId, mode: e.mode, actor: e.actor }).toEqual({ requestId: cause.requestId, teamId: TEAM_A, mode: 'live', actor: { type: 'system', id: null } });
    }
    // The quests completed on the 3rd and the 19th close of the batch: announced in those closes' scope.
    const quests = h.events.filter((e) => e.type === 'game.quest.completed' && (e.data as { memberId: string }).memberId === many.id);
    expect(quests.map((e) => e.requestId)).toEqual([closes[2]!.requestId, closes[18]!.requestId]);
  });

  it('events of several teams and partitions in one batch: each partition paid apart, each event in its own scope', async () => {
    const partitions: Where[] = [{ teamId: TEAM_A, mode: 'live' }, { teamId: TEAM_A, mode: 'test' }, { teamId: TEAM_B, mode: 'live' }];
    const ann = await joinMember(h, TEAM_A, 'Ann');
    const bob = await joinMember(h, TEAM_B, 'Bob');
    const payee = (w: Where) => (w.teamId === TEAM_B ? bob : ann);
    const tickets = partitions.map(() => variedTickets(2));
    for (const [i, w] of partitions.entries()) await createAll(tickets[i]!, w);
    const closes = partitions.flatMap((w, i) => tickets[i]!.map((t) => closeOf(t, payee(w).id, w)));
    await h.publish(...closes);
    for (const [i, w] of partitions.entries()) {
      const s = await stateOf(payee(w).id, w);
      expect(s.player).toMatchObject({ stats: { ticketsClosed: 2 } });
      expect(s.payouts).toBe(2);
      for (const t of tickets[i]!) {
        const award = h.events.find((e) => e.type === 'game.xp_awarded' && (e.data as { ticketId: string }).ticketId === t.id)!;
        const cause = closes.find((e) => e.data.ticket.id === t.id)!;
        expect([award.teamId, award.mode, award.requestId]).toEqual([w.teamId, w.mode, cause.requestId]);
      }
    }
  });

  it('a ticket pays once: closed twice in one batch, by two members in one batch, and closed again after it paid', async () => {
    const cat = await joinMember(h, TEAM_A, 'Cat');
    const dov = await joinMember(h, TEAM_A, 'Dov');
    const [t1, t2, t3] = variedTickets(3);
    await createAll([t1!, t2!, t3!], live);
    await h.publish(closeOf(t3!, cat.id, live));
    const paidXp = (id: string) => h.events.filter((e) => e.type === 'game.xp_awarded' && (e.data as { ticketId: string }).ticketId === id);
    expect(paidXp(t3!.id)).toHaveLength(1);
    // t1 twice by Cat, t2 by Cat then Dov, t3 (paid) again: one batch.
    await h.publish(closeOf(t1!, cat.id, live), closeOf(t1!, cat.id, live), closeOf(t2!, cat.id, live), closeOf(t2!, dov.id, live), closeOf(t3!, dov.id, live));
    for (const t of [t1!, t2!, t3!]) {
      expect(paidXp(t.id)).toHaveLength(1);
      expect((paidXp(t.id)[0]!.data as { memberId: string }).memberId).toBe(cat.id);
      expect(await h.svc.conn.collection('ticket_payouts').countDocuments({ ticketId: t.id })).toBe(1);
    }
    expect((await stateOf(cat.id, live)).player).toMatchObject({ stats: { ticketsClosed: 3 } });
    expect((await stateOf(dov.id, live)).player).toBeNull();
  });

  it('a redelivered event in a batch: the batch is applied again one delivery at a time; the repeat is skipped, the others pay once', async () => {
    const eli = await joinMember(h, TEAM_A, 'Eli');
    const [t1, t2, t3] = variedTickets(3);
    await createAll([t1!, t2!, t3!], live);
    const first = closeOf(t1!, eli.id, live);
    await h.publish(first);
    const before = batchStats();
    // The first close's event again (a redelivery after its commit), with two new closes, at once.
    await h.publish({ ...first } as EventEnvelope, closeOf(t2!, eli.id, live), closeOf(t3!, eli.id, live));
    expect(batchStats().split).toBeGreaterThan(before.split);
    expect((await stateOf(eli.id, live)).player).toMatchObject({ stats: { ticketsClosed: 3 } });
    expect(h.events.filter((e) => e.type === 'game.xp_awarded' && (e.data as { memberId: string }).memberId === eli.id)).toHaveLength(3);
    expect(h.bus.deadLetters).toEqual([]);
  });

  it('in one batch: a removed member, a member-opened ticket and a close by a key pay nothing; the others pay', async () => {
    const fay = await joinMember(h, TEAM_A, 'Fay');
    const gil = await joinMember(h, TEAM_A, 'Gil');
    await h.publish(envelope('member.removed', { memberId: gil.id, member: gil }, live));
    const [t1, t2, t3] = variedTickets(3);
    const own = customerTicket(h, { openedBy: 'member' });
    await createAll([t1!, t2!, t3!, own], live);
    const byKey = closeOf(t3!, fay.id, live);
    byKey.actor = { type: 'key', id: 'key_testkey0001' };
    await h.publish(closeOf(t1!, fay.id, live), closeOf(t2!, gil.id, live), byKey, closeOf(own, fay.id, live));
    expect((await stateOf(fay.id, live)).player).toMatchObject({ stats: { ticketsClosed: 1 } });
    expect((await stateOf(gil.id, live)).player).toBeNull();
    // The snapshots were all recorded all the same.
    const stored = await h.svc.conn.collection('tickets').find({ _id: { $in: [t1!.id, t2!.id, t3!.id, own.id] as never[] } }).toArray();
    expect(stored.map((t) => t.status)).toEqual(['closed', 'closed', 'closed', 'closed']);
  });
});
