import { levelOf, levelProgress, ticketPay, xpForLevel } from '../src/player/progression';
import { call, closeCustomerTicket, closedBy, created, customerTicket, DAY, envelope, expectError, joinMember, slaOf, startHarness, TEAM_A, TEAM_B, type Harness } from './helpers';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h?.stop());

const live = { teamId: TEAM_A, mode: 'live' as const };
const asLive = { as: { mode: 'live' as const } };
const player = async (ref: string, opts: object = asLive) => {
  const r = await h.api('GET', `/teams/{team}/game/player?userId=${ref}`, opts);
  expect(r.status).toBe(200);
  return r.body.data;
};

describe('level curve and XP table', () => {
  it('100 × L XP from level L to L+1, capped at 50', () => {
    expect([xpForLevel(1), xpForLevel(2), xpForLevel(3), xpForLevel(50)]).toEqual([0, 100, 300, 122_500]);
    expect([levelOf(0), levelOf(99), levelOf(100), levelOf(299), levelOf(300), levelOf(10_000_000)]).toEqual([1, 1, 2, 2, 3, 50]);
    expect(levelProgress(150)).toEqual({ level: 2, xpInCurrentLevel: 50, xpToNextLevel: 150, xpProgress: 0.25 });
    expect(levelProgress(200_000)).toEqual({ level: 50, xpInCurrentLevel: 77_500, xpToNextLevel: 0, xpProgress: 1 });
  });
  it('priority sets the base; SLA tier, streak and Swift Resolver add to it', () => {
    const skills = { swift_resolver: 0, gold_digger: 0, boss_slayer: 0, shield_breaker: 0 };
    expect(ticketPay({ priority: 'urgent', slaTier: null, streakDays: 1, skills })).toMatchObject({ xp: 50, gold: 25 });
    expect(ticketPay({ priority: 'normal', slaTier: 'gold', streakDays: 3, skills: { ...skills, swift_resolver: 5, gold_digger: 2 } })).toMatchObject({
      xp: Math.round(20 * (1 + 0.5 + 0.1 + 0.2)),
      gold: 11,
    });
    expect(ticketPay({ priority: 'low', slaTier: 'missed', streakDays: 30, skills }).xp).toBe(Math.round(10 * 1.25));
  });
});

describe('XP from closed customer tickets', () => {
  it('the member who closes a customer ticket earns XP and gold, once ever', async () => {
    const ada = await joinMember(h, TEAM_A, 'Ada');
    const t = await closeCustomerTicket(h, ada.id, live, { priority: 'high' });
    const p = await player(ada.userId);
    expect(p).toMatchObject({
      object: 'player_stats', memberId: ada.id, name: 'Ada', boringMode: false, level: 1, xp: 35, xpToNextLevel: 65, xpInCurrentLevel: 35, xpProgress: 0.35,
      gold: 15 + 10, prestigeLevel: 0, prestigeBonus: 0, streaks: { current: 1, max: 1 },
      stats: { ticketsClosed: 1, bossesDefeated: 0, finalBlows: 0, achievementsUnlocked: 1, questsCompleted: 0 },
      season: { id: '2026-Q4', name: 'Harvest 2026', endsAt: '2027-01-01T00:00:00.000Z' },
      skills: { swift_resolver: { level: 0, maxLevel: 5, effect: '+0% XP from closed tickets' } },
      availableSkillPoints: 0, totalSkillPoints: 0, cosmetics: { avatarFrame: null, victoryMessage: null, owned: [] },
    });
    const types = h.events.filter((e) => e.data.memberId === ada.id).map((e) => e.type);
    expect(types).toEqual(['game.xp_awarded', 'game.player.progressed', 'game.achievement.unlocked']);
    expect(h.events.find((e) => e.type === 'game.xp_awarded' && e.data.memberId === ada.id)!.data).toMatchObject({ reason: 'ticket_closed', xp: 35, gold: 15, ticketId: t.id, level: 1, seasonXp: 35 });

    // A second close, re-opening and closing again, another close event: nothing more.
    await closedBy(h, t, ada.id, live);
    await h.publish(envelope('ticket.updated', { ticket: { ...t, status: 'open', closedAt: null }, changes: ['status'], previous: { status: 'closed' } }, live));
    await closedBy(h, { ...t, status: 'open' }, ada.id, live);
    expect((await player(ada.id)).xp).toBe(35);
    expect(await h.svc.conn.collection('ticket_payouts').countDocuments({ ticketId: t.id })).toBe(1);
  });

  it('tickets opened by a member, without openedBy, imported, or closed by a key without a member pay nothing', async () => {
    const bo = await joinMember(h, TEAM_A, 'Bo');
    await closeCustomerTicket(h, bo.id, live, { openedBy: 'member' });
    await closeCustomerTicket(h, bo.id, live, { openedBy: undefined });
    await closeCustomerTicket(h, bo.id, live, { channel: 'import' });
    const t = customerTicket(h);
    await created(h, t, live);
    await closedBy(h, t, null, live);
    expect(await player(bo.id)).toMatchObject({ xp: 0, gold: 0, stats: { ticketsClosed: 0 } });
  });

  it('streak days and the SLA tier add their bonus; level-ups give a skill point and are announced', async () => {
    const cy = await joinMember(h, TEAM_A, 'Cy');
    await closeCustomerTicket(h, cy.id, live, { priority: 'urgent' }); // 50
    h.clock.advance(DAY);
    await closeCustomerTicket(h, cy.id, live, { priority: 'normal', sla: slaOf('gold') }); // 20 × (1 + 0.5 + 0.05) = 31
    const p = await player(cy.id);
    expect(p).toMatchObject({ xp: 81, streaks: { current: 2, max: 2 } });
    await closeCustomerTicket(h, cy.id, live, { priority: 'urgent' }); // 50 × 1.05 = 53 → 134: level 2
    expect(await player(cy.id)).toMatchObject({ level: 2, xp: 134, xpInCurrentLevel: 34, xpToNextLevel: 166, availableSkillPoints: 1, totalSkillPoints: 1 });
    expect(h.events.filter((e) => e.type === 'game.level_up' && e.data.memberId === cy.id).map((e) => e.data)).toEqual([
      { memberId: cy.id, seasonId: '2026-Q4', previousLevel: 1, level: 2 },
    ]);
    expect(h.events.some((e) => e.type === 'game.achievement.unlocked' && e.data.memberId === cy.id && e.data.achievement === 'gold_sla')).toBe(true);
    // Two days without a close: the streak is broken (max stays).
    h.clock.advance(2 * DAY);
    expect((await player(cy.id)).streaks).toEqual({ current: 0, max: 2 });
  });

  it('boring mode hides XP, level, bosses and achievements while XP keeps accruing', async () => {
    const di = await joinMember(h, TEAM_A, 'Di');
    await h.publish(envelope('member.preferences_updated', { memberId: di.id, preferences: { boringMode: true }, changes: ['boringMode'], previous: { boringMode: false } }, live));
    await closeCustomerTicket(h, di.id, live, { priority: 'low' });
    expect(await player(di.id)).toMatchObject({ boringMode: true, level: null, xp: null, xpToNextLevel: null, xpProgress: null, stats: { ticketsClosed: 1, bossesDefeated: null, achievementsUnlocked: null } });
    expect((await h.api('GET', `/teams/{team}/game/player/${di.id}/achievements`, asLive)).body.data).toEqual([]);
    await h.publish(envelope('member.preferences_updated', { memberId: di.id, preferences: { boringMode: false }, changes: ['boringMode'], previous: { boringMode: true } }, live));
    expect(await player(di.id)).toMatchObject({ boringMode: false, xp: 10, level: 1, stats: { achievementsUnlocked: 1 } });
  });

  it('each partition plays its own game: test tickets pay in the test partition only', async () => {
    const ed = await joinMember(h, TEAM_A, 'Ed');
    await closeCustomerTicket(h, ed.id, { teamId: TEAM_A, mode: 'test' }, { priority: 'normal' });
    expect((await player(ed.id, { as: { mode: 'test' } })).xp).toBe(20);
    expect((await player(ed.id)).xp).toBe(0);
  });

  it('a season ends: level and XP start again, lifetime stats stay; the past season is listed', async () => {
    const fay = await joinMember(h, TEAM_A, 'Fay');
    await closeCustomerTicket(h, fay.id, live, { priority: 'urgent' });
    h.clock.at = new Date('2027-01-02T09:00:00Z');
    expect(await player(fay.id)).toMatchObject({ season: { id: '2027-Q1', name: 'Frost 2027' }, xp: 0, level: 1, lifetimeXp: 50, stats: { ticketsClosed: 1 } });
    await closeCustomerTicket(h, fay.id, live, { priority: 'low' });
    expect(await player(fay.id)).toMatchObject({ xp: 10, lifetimeXp: 60, stats: { ticketsClosed: 2 } });
    expect(h.events.find((e) => e.type === 'game.season.rolled_over' && e.data.memberId === fay.id)!.data).toEqual({
      memberId: fay.id, fromSeasonId: '2026-Q4', toSeasonId: '2027-Q1', finalLevel: 1, finalXp: 50,
    });
    const seasons = (await h.api('GET', `/teams/{team}/game/seasons?userId=${fay.id}`, asLive)).body.data;
    expect(seasons[0]).toMatchObject({ id: '2026-Q4', finalLevel: 1, finalXp: 50 });
    expect(seasons[1]).toMatchObject({ id: '2026-Q3', finalLevel: null });
    h.clock.at = new Date('2026-11-27T10:00:00Z');
  });

  it('bad inputs: missing or unknown userId, another team\'s member, no game_participation, publishable key', async () => {
    const gil = await joinMember(h, TEAM_B, 'Gil');
    expectError(await h.api('GET', '/teams/{team}/game/player', { as: { mode: 'live', memberId: null } }), 400, 'parameter_missing', 'userId');
    // Without userId: the key's own member (unknown to the game here: 404 naming userId).
    expectError(await h.api('GET', '/teams/{team}/game/player', asLive), 404, 'resource_not_found', 'userId');
    const own = await joinMember(h, TEAM_A, 'Own Key');
    expect((await h.api('GET', '/teams/{team}/game/player', { as: { mode: 'live', memberId: own.id } })).body.data).toMatchObject({ memberId: own.id });
    expectError(await h.api('GET', '/teams/{team}/game/player?userId=nope', asLive), 400, 'parameter_invalid', 'userId');
    expectError(await h.api('GET', `/teams/{team}/game/player?userId=${gil.userId}`, asLive), 404, 'resource_not_found', 'userId');
    expectError(await h.api('GET', `/teams/{team}/game/player/${gil.id}`, asLive), 404, 'resource_not_found', 'memberId');
    expectError(await h.api('GET', `/teams/{team}/game/player?userId=${gil.id}`, { as: { mode: 'live', permissions: ['view_tickets'] } }), 403, 'insufficient_permissions', undefined);
    const pub = await call(h.url, 'GET', `/teams/{team}/game/player?userId=${gil.id}`, { as: { keyType: 'publishable', permissions: ['game_participation'] } });
    expect(pub.status).toBe(403);
  });
});
