import { puzzleOf } from '../src/puzzles/daily';
import { ALL_ON } from '../src/members/model';
import { closeCustomerTicket, closeCustomerTickets, DAY, envelope, expectError, joinMember, startHarness, TEAM_A, type Harness } from './helpers';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h?.stop());

const live = { teamId: TEAM_A, mode: 'live' as const };
const as = (memberId: string | null) => ({ as: { mode: 'live' as const, memberId } });
const get = (path: string, memberId: string | null = null) => h.api('GET', `/teams/{team}/game${path}`, as(memberId));
const post = (path: string, body: unknown, memberId: string | null = null) => h.api('POST', `/teams/{team}/game${path}`, { ...as(memberId), body });
const ok = (r: { status: number; body: any }, status = 200) => {
  expect({ status: r.status, error: r.body?.error }).toEqual({ status, error: undefined });
  return r.body.data;
};

describe('quests', () => {
  it('progress comes from closes; a finished quest is claimed once; an unfinished one is refused', async () => {
    const ada = await joinMember(h, TEAM_A, 'Ada');
    await closeCustomerTickets(h, ada.id, live, 2);
    const quests = ok(await get('/quests', ada.id));
    expect(quests.find((q: any) => q.key === 'daily_close_3')).toMatchObject({ cadence: 'daily', periodId: '2026-11-24', target: 3, progress: 2, completed: false, claimed: false, endsAt: '2026-11-25T00:00:00.000Z' });
    expectError(await post('/quests/daily_close_3/claim', {}, ada.id), 422, 'game_rule_violation', 'questKey');
    await closeCustomerTicket(h, ada.id, live);
    expect(h.events.filter((e) => e.type === 'game.quest.completed' && e.data.memberId === ada.id).map((e) => e.data.quest)).toEqual(['daily_close_3']);
    const before = ok(await get(`/player/${ada.id}`)).xp;
    expect(ok(await post('/quests/daily_close_3/claim', {}, ada.id))).toMatchObject({ completed: true, claimed: true, rewards: { xp: 30, gold: 10 } });
    expect(ok(await get(`/player/${ada.id}`))).toMatchObject({ xp: before + 30, stats: { questsCompleted: 1 } });
    expectError(await post('/quests/daily_close_3/claim', {}, ada.id), 409, 'already_done', 'questKey');
    expectError(await post('/quests/nope/claim', {}, ada.id), 404, 'resource_not_found', 'questKey');
  });
});

describe('kudos', () => {
  it('pays the receiver; never to oneself; 3 a day and one a week per teammate', async () => {
    const [a, b, c, d, e] = await Promise.all(['Al', 'Be', 'Ce', 'De', 'Ev'].map((n) => joinMember(h, TEAM_A, n)));
    expectError(await post('/kudos', { toMemberId: a!.id }, a!.id), 400, 'parameter_invalid', 'toMemberId');
    const k = ok(await post('/kudos', { toMemberId: b!.id, message: 'Thanks for the handover!' }, a!.id), 201);
    expect(k).toMatchObject({ id: expect.stringMatching(/^kudos_/), fromMemberId: a!.id, toMemberId: b!.id, message: 'Thanks for the handover!' });
    expect(ok(await get(`/player/${b!.id}`))).toMatchObject({ xp: 10, gold: 5 });
    expectError(await post('/kudos', { toMemberId: b!.id }, a!.id), 422, 'game_rule_violation', 'toMemberId');
    ok(await post('/kudos', { toMemberId: c!.id }, a!.id), 201);
    ok(await post('/kudos', { toMemberId: d!.id }, a!.id), 201);
    expectError(await post('/kudos', { toMemberId: e!.id }, a!.id), 422, 'game_rule_violation', undefined);
    expect(ok(await get(`/player/${e!.id}`)).xp).toBe(0);
    expect((await get(`/kudos?userId=${a!.id}`)).body.meta.pagination).toMatchObject({ total: 3 });
  });
});

describe('skills, cosmetics, prestige', () => {
  it('points come with level-ups; unknown skill 404; at level 5 or without points refused; reset costs gold', async () => {
    const fi = await joinMember(h, TEAM_A, 'Fi');
    expectError(await post('/skills/swift_resolver/upgrade', {}, fi.id), 422, 'insufficient_skill_points', undefined);
    expectError(await post('/skills/flying/upgrade', {}, fi.id), 404, 'resource_not_found', 'skillKey');
    await closeCustomerTickets(h, fi.id, live, 4, { priority: 'urgent' }); // 200 XP: level 2; 100 + 10 gold
    const p = ok(await post('/skills/boss_slayer/upgrade', {}, fi.id));
    expect(p).toMatchObject({ level: 2, availableSkillPoints: 0, totalSkillPoints: 1, skills: { boss_slayer: { level: 1, maxLevel: 5, effect: '+10% boss damage' } } });
    expect(ok(await post('/skills/reset', {}, fi.id))).toMatchObject({ availableSkillPoints: 1, skills: { boss_slayer: { level: 0 } }, gold: p.gold - 100 });
    expectError(await post('/skills/reset', {}, fi.id), 422, 'game_rule_violation', undefined);
    expect(ok(await get('/skills')).map((s: any) => s.key)).toEqual(['swift_resolver', 'gold_digger', 'boss_slayer', 'shield_breaker']);
  });

  it('cosmetics: not enough gold 422, buy once, equip only what one owns', async () => {
    const gus = await joinMember(h, TEAM_A, 'Gus');
    expectError(await post('/cosmetics/bronze_frame/purchase', {}, gus.id), 422, 'insufficient_gold', undefined);
    await closeCustomerTickets(h, gus.id, live, 2, { priority: 'urgent' }); // 50 gold + 10 (first_ticket)
    expect(ok(await post('/cosmetics/bronze_frame/purchase', {}, gus.id))).toMatchObject({ gold: 10, cosmetics: { owned: ['bronze_frame'], avatarFrame: null } });
    expectError(await post('/cosmetics/bronze_frame/purchase', {}, gus.id), 409, 'already_done', 'cosmeticKey');
    expectError(await post('/cosmetics/equip', { avatarFrame: 'gold_frame' }, gus.id), 422, 'game_rule_violation', 'avatarFrame');
    expect(ok(await post('/cosmetics/equip', { avatarFrame: 'bronze_frame' }, gus.id)).cosmetics).toEqual({ avatarFrame: 'bronze_frame', victoryMessage: null, owned: ['bronze_frame'] });
    expectError(await post('/cosmetics/nope/purchase', {}, gus.id), 404, 'resource_not_found', 'cosmeticKey');
  });

  it('prestige needs the level cap', async () => {
    const hal = await joinMember(h, TEAM_A, 'Hal');
    expectError(await post('/prestige', {}, hal.id), 422, 'game_rule_violation', undefined);
    await closeCustomerTicket(h, hal.id, live, { priority: 'low' });
    await h.svc.conn.collection('players').updateOne({ memberId: hal.id }, { $set: { seasonXp: 122_500 } });
    expect(ok(await post('/prestige', {}, hal.id))).toMatchObject({ level: 1, xp: 0, prestigeLevel: 1, prestigeBonus: 0.05 });
    await closeCustomerTicket(h, hal.id, live, { priority: 'normal' });
    expect(ok(await get(`/player/${hal.id}`)).xp).toBe(21);
  });
});

describe('puzzle and leaderboard', () => {
  it('one answer a day; the right order pays', async () => {
    const ivy = await joinMember(h, TEAM_A, 'Ivy');
    const today = ok(await get(`/puzzles/daily?userId=${ivy.id}`));
    expect(today).toMatchObject({ id: 'puzzle_2026-11-24', answered: false, correct: null });
    expect(today.tickets).toHaveLength(4);
    const answer = puzzleOf('2026-11-24').answer;
    expect(ok(await post('/puzzles/daily/answer', { answer }, ivy.id))).toMatchObject({ answered: true, correct: true });
    expectError(await post('/puzzles/daily/answer', { answer }, ivy.id), 409, 'already_done', undefined);
    expect(ok(await get(`/player/${ivy.id}`)).xp).toBe(30);
  });

  it('ranks by XP, tickets closed or boss damage, per season or week; ties share a rank', async () => {
    const board = ok(await get('/leaderboard?metric=tickets_closed&period=week&limit=4'));
    expect(board).toMatchObject({ object: 'leaderboard', metric: 'tickets_closed', period: 'week', periodId: '2026-W48' });
    // Fi 4, Ada 3, then Gus and Hal with 2 each.
    expect(board.entries.map((e: any) => [e.rank, e.value])).toEqual([[1, 4], [2, 3], [3, 2], [3, 2]]);
    expect(ok(await get('/leaderboard')).entries[0]).toMatchObject({ rank: 1 });
    expectError(await get('/leaderboard?metric=karma'), 400, 'parameter_invalid', 'metric');
  });

  it('switched-off features answer 403 feature_disabled', async () => {
    const off = { ...ALL_ON, questsEnabled: false, socialEnabled: false, leaderboardsEnabled: false, skillTreesEnabled: false, cosmeticsEnabled: false, puzzlesEnabled: false, seasonsEnabled: false, achievementsEnabled: false };
    await h.publish(envelope('feature_flags.updated', { featureFlags: off, changes: [], previous: {} }, live));
    for (const path of ['/quests?userId=mem_member000001', '/kudos', '/leaderboard', '/skills', '/cosmetics', '/puzzles/daily', '/seasons/current', '/achievements']) {
      expectError(await get(path), 403, 'feature_disabled', undefined);
    }
    await h.publish(envelope('feature_flags.updated', { featureFlags: ALL_ON, changes: [], previous: {} }, live));
    h.clock.advance(DAY);
  });
});
