/** The game's read operations for a member's records, single catalog entries and the team dashboard, through the gateway. */
import { startTestPlatform, type TeamKeys, type TestPlatform } from '../support/platform';
import { eventually, expectError, expectOk } from './helpdesk-helpers';
import { closeTicket, customerTicket, playerWhen } from './game-helpers';
import { addMember, WorkspaceEvents, type TestMember } from './workspace-helpers';

let tp: TestPlatform;
let team: TeamKeys;
let ada: TestMember;
let bo: TestMember;
let scout: TestMember;
const tickets: string[] = [];
const G = () => `/teams/${team.teamId}/game`;

beforeAll(async () => {
  tp = await startTestPlatform();
  const log = await WorkspaceEvents.start(tp);
  team = await tp.createTeam('Records Co');
  ada = await addMember(tp, log, team, 'agent', team.sk_live);
  bo = await addMember(tp, log, team, 'agent', team.sk_live);
  scout = await addMember(tp, log, team, 'spectator', team.sk_live);
  // Five customer tickets (enough for a boss); Bo closes two urgent ones: 2 × (50 XP, 25 gold) and first_ticket's 10 gold.
  for (let i = 0; i < 5; i++) tickets.push((await customerTicket(tp, team, bo.key, 'urgent')).id);
  for (const id of tickets.slice(0, 2)) await closeTicket(tp, team, bo.key, id);
  await playerWhen(tp, team, bo.key, bo.id, (p) => p.stats.ticketsClosed === 2 && p.gold === 60, 'two closes and an achievement');
}, 120_000);
afterAll(async () => {
  await tp?.stop();
}, 60_000);

describe('game: a member\'s records', () => {
  it('xp-history: every payment, newest first, paginated; bad inputs', async () => {
    const res = await tp.api.get(`${G()}/player/${bo.id}/xp-history?pageSize=2`, { key: ada.key });
    expect(res.status).toBe(200);
    expect(res.body.meta.pagination).toEqual({ page: 1, pageSize: 2, total: 3, totalPages: 2, hasMore: true });
    const all = expectOk(await tp.api.get(`${G()}/player/${bo.id}/xp-history`, { key: ada.key }), 200);
    expect(all.map((r: any) => r.reason).sort()).toEqual(['achievement', 'ticket_closed', 'ticket_closed']);
    expect(all.reduce((n: number, r: any) => n + r.xp, 0)).toBe(100);
    expect(all.reduce((n: number, r: any) => n + r.gold, 0)).toBe(60);
    expect(all[0]).toMatchObject({ reason: 'ticket_closed', xp: 50, gold: 25, seasonId: expect.stringMatching(/^\d{4}-Q[1-4]$/) });
    expectError(await tp.api.get(`${G()}/player/${bo.id}/xp-history?pageSize=0`, { key: ada.key }), 400, 'invalid_request_error', 'parameter_invalid', 'pageSize');
    expectError(await tp.api.get(`${G()}/player/${bo.id}/xp-history?reason=kudos`, { key: ada.key }), 400, 'invalid_request_error', 'parameter_invalid', 'reason');
    const other = expectOk(await tp.api.get(`/teams/${tp.team.teamId}/members`, { key: tp.team.sk_live }), 200)[0];
    expectError(await tp.api.get(`${G()}/player/${other.id}/xp-history`, { key: ada.key }), 404, 'not_found_error', 'resource_not_found', 'memberId');
    // The test partition plays its own game: nothing was paid there.
    expect(expectOk(await tp.api.get(`${G()}/player/${bo.id}/xp-history`, { key: team.sk_test }), 200)).toEqual([]);
  });

  it('quests by member id: the same progress as GET /quests?userId=', async () => {
    const mine = expectOk(await tp.api.get(`${G()}/player/${bo.id}/quests`, { key: ada.key }), 200);
    expect(mine.find((q: any) => q.key === 'daily_close_3')).toMatchObject({ progress: 2, completed: false, claimed: false });
    expect(mine).toEqual(expectOk(await tp.api.get(`${G()}/quests?userId=${bo.id}`, { key: ada.key }), 200));
    expectError(await tp.api.get(`${G()}/player/mem_nobody123/quests`, { key: ada.key }), 404, 'not_found_error', 'resource_not_found', 'memberId');
  });

  it('inventory: gold, owned and equipped cosmetics; one cosmetic by key', async () => {
    expect(expectOk(await tp.api.get(`${G()}/player/${bo.id}/inventory`, { key: bo.key }), 200)).toEqual({
      object: 'inventory', memberId: bo.id, gold: 60, equipped: { avatarFrame: null, victoryMessage: null }, items: [],
    });
    expectOk(await tp.api.post(`${G()}/cosmetics/bronze_frame/purchase`, {}, { key: bo.key }), 200);
    expectOk(await tp.api.post(`${G()}/cosmetics/equip`, { avatarFrame: 'bronze_frame' }, { key: bo.key }), 200);
    const inv = expectOk(await tp.api.get(`${G()}/player/${bo.id}/inventory`, { key: ada.key }), 200);
    expect(inv).toMatchObject({ gold: 10, equipped: { avatarFrame: 'bronze_frame', victoryMessage: null }, items: [{ key: 'bronze_frame', kind: 'avatar_frame', price: 50 }] });
    expect(expectOk(await tp.api.get(`${G()}/cosmetics/sla_legend`, { key: bo.key }), 200)).toEqual({
      key: 'sla_legend', kind: 'victory_message', name: 'SLA legend', price: 120, text: 'Resolved before you noticed.',
    });
    expectError(await tp.api.get(`${G()}/cosmetics/rainbow_frame`, { key: bo.key }), 404, 'not_found_error', 'resource_not_found', 'cosmeticKey');
    expectError(await tp.api.get(`${G()}/player/${bo.id}/inventory`, { key: team.pk_live }), 403, 'authorization_error', 'publishable_key_forbidden');
    expectError(await tp.api.get(`${G()}/player/${bo.id}/inventory`, { key: scout.key }), 403, 'authorization_error', 'insufficient_permissions');
  });

  it('kudos received and the activity figures (streak, puzzles, kudos)', async () => {
    expectOk(await tp.api.post(`${G()}/kudos`, { toMemberId: bo.id, message: 'Thanks!' }, { key: ada.key }), 201);
    expectOk(await tp.api.post(`${G()}/kudos`, { toMemberId: ada.id }, { key: bo.key }), 201);
    const received = expectOk(await tp.api.get(`${G()}/player/${bo.id}/kudos`, { key: bo.key }), 200);
    expect(received).toEqual([{ id: expect.any(String), fromMemberId: ada.id, toMemberId: bo.id, message: 'Thanks!', createdAt: expect.any(String) }]);
    expectError(await tp.api.get(`${G()}/player/${bo.id}/kudos?page=0`, { key: bo.key }), 400, 'invalid_request_error', 'parameter_invalid', 'page');

    const before = expectOk(await tp.api.get(`${G()}/player/${bo.id}/activity`, { key: ada.key }), 200);
    const today = new Date().toISOString().slice(0, 10);
    expect(before).toEqual({
      object: 'player_activity', memberId: bo.id,
      streaks: { current: 1, max: 1, lastActiveDay: today },
      puzzles: { answered: 0, solved: 0, answeredToday: false },
      kudos: { given: 1, received: 1 },
    });
    expectOk(await tp.api.post(`${G()}/puzzles/daily/answer`, { answer: ['A', 'B', 'C', 'D'] }, { key: bo.key }), 200);
    const after = expectOk(await tp.api.get(`${G()}/player/${bo.id}/activity`, { key: ada.key }), 200);
    expect(after.puzzles).toMatchObject({ answered: 1, answeredToday: true });
    expect(expectOk(await tp.api.get(`${G()}/player/${scout.id}/activity`, { key: ada.key }), 200)).toMatchObject({ streaks: { current: 0, max: 0, lastActiveDay: null } });
  });
});

describe('game: catalog entries, past leaderboards, the boss\'s participants and the dashboard', () => {
  it('one achievement and one skill by key', async () => {
    expect(expectOk(await tp.api.get(`${G()}/achievements/first_ticket?userId=${bo.id}`, { key: ada.key }), 200)).toEqual({
      key: 'first_ticket', name: 'First Blood', description: 'Close your first customer ticket.', gold: 10, unlockedAt: expect.any(String),
    });
    expect(expectOk(await tp.api.get(`${G()}/achievements/first_ticket?userId=${ada.id}`, { key: ada.key }), 200).unlockedAt).toBeNull();
    expectError(await tp.api.get(`${G()}/achievements/moonwalker`, { key: ada.key }), 404, 'not_found_error', 'resource_not_found', 'achievementKey');
    expectError(await tp.api.get(`${G()}/achievements/first_ticket?userId=mem_nobody123`, { key: ada.key }), 404, 'not_found_error', 'resource_not_found', 'userId');
    expect(expectOk(await tp.api.get(`${G()}/skills/boss_slayer`, { key: ada.key }), 200)).toMatchObject({ key: 'boss_slayer', maxLevel: 5, costPerLevel: 1 });
    expectError(await tp.api.get(`${G()}/skills/flying`, { key: ada.key }), 404, 'not_found_error', 'resource_not_found', 'skillKey');
  });

  it('a season\'s leaderboard by seasonId; a future season, a week with a season, a bad id: 400', async () => {
    const current = expectOk(await tp.api.get(`${G()}/seasons/current`, { key: ada.key }), 200).id;
    const board = await eventually('the season board', async () => {
      const b = expectOk(await tp.api.get(`${G()}/leaderboard?seasonId=${current}&metric=tickets_closed`, { key: ada.key }), 200);
      return b.entries.length ? b : null;
    });
    expect(board).toMatchObject({ periodId: current, entries: [{ rank: 1, memberId: bo.id, value: 2 }] });
    const past = expectOk(await tp.api.get(`${G()}/seasons`, { key: ada.key }), 200)[0].id;
    expect(expectOk(await tp.api.get(`${G()}/leaderboard?seasonId=${past}`, { key: ada.key }), 200)).toMatchObject({ periodId: past, entries: [] });
    expectError(await tp.api.get(`${G()}/leaderboard?seasonId=2999-Q1`, { key: ada.key }), 400, 'invalid_request_error', 'parameter_invalid', 'seasonId');
    expectError(await tp.api.get(`${G()}/leaderboard?seasonId=${current}&period=week`, { key: ada.key }), 400, 'invalid_request_error', 'parameter_invalid', 'seasonId');
    expectError(await tp.api.get(`${G()}/leaderboard?seasonId=2026-Q5`, { key: ada.key }), 400, 'invalid_request_error', 'parameter_invalid', 'seasonId');
  });

  it('the boss\'s participants, most damage first; the dashboard summary', async () => {
    expect(expectOk(await tp.api.get(`${G()}/boss/participants`, { key: ada.key }), 200)).toEqual([]);
    await eventually('the spawn', async () => (await tp.api.post(`${G()}/boss/spawn`, {}, { key: bo.key })).status === 201);
    // Bo hits with an urgent ticket (50), Ada with a low one she closes herself (10).
    expectOk(await tp.api.post(`${G()}/boss/damage`, { ticketId: tickets[0] }, { key: bo.key }), 200);
    const low = (await customerTicket(tp, team, ada.key, 'low')).id;
    await closeTicket(tp, team, ada.key, low);
    await playerWhen(tp, team, ada.key, ada.id, (p) => p.stats.ticketsClosed === 1, 'Ada\'s close');
    expectOk(await tp.api.post(`${G()}/boss/damage`, { ticketId: low }, { key: ada.key }), 200);
    const participants = expectOk(await tp.api.get(`${G()}/boss/participants`, { key: ada.key }), 200);
    expect(participants.map((p: any) => [p.memberId, p.damage, p.hits])).toEqual([[bo.id, 50, 1], [ada.id, 10, 1]]);

    const summary = expectOk(await tp.api.get(`${G()}/summary`, { key: ada.key }), 200);
    expect(summary).toMatchObject({
      object: 'game_summary',
      season: { id: expect.stringMatching(/^\d{4}-Q[1-4]$/) },
      boss: { name: 'Backlog Goblin', difficulty: 'easy', healthPercent: 0.88, phase: 1 },
    });
    expect(summary.topPlayers.map((e: any) => e.memberId)).toEqual([bo.id, ada.id]);
  });

  it('switches: boss battles and cosmetics off answer 403; the dashboard shows what is on; boring mode hides a member\'s XP records', async () => {
    expectOk(await tp.api.patch(`/teams/${team.teamId}/settings/feature-flags`, { bossBattlesEnabled: false, cosmeticsEnabled: false, seasonsEnabled: false }, { key: team.sk_live }), 200);
    await eventually('the switch', async () => (await tp.api.get(`${G()}/boss/participants`, { key: ada.key })).status === 403);
    expectError(await tp.api.get(`${G()}/boss/participants`, { key: ada.key }), 403, 'authorization_error', 'feature_disabled');
    expectError(await tp.api.get(`${G()}/player/${bo.id}/inventory`, { key: ada.key }), 403, 'authorization_error', 'feature_disabled');
    expectError(await tp.api.get(`${G()}/cosmetics/bronze_frame`, { key: ada.key }), 403, 'authorization_error', 'feature_disabled');
    expect(expectOk(await tp.api.get(`${G()}/summary`, { key: ada.key }), 200)).toMatchObject({ season: null, boss: null, topPlayers: [{ memberId: bo.id }, { memberId: ada.id }] });

    const prefs = `/teams/${team.teamId}/members/${bo.id}/preferences`;
    expectOk(await tp.api.patch(prefs, { boringMode: true }, { key: team.sk_live }), 200);
    await playerWhen(tp, team, ada.key, bo.id, (x) => x.boringMode, 'boring mode');
    const hidden = await tp.api.get(`${G()}/player/${bo.id}/xp-history`, { key: ada.key });
    expect(hidden.status).toBe(200);
    expect(hidden.body.data).toEqual([]);
    expect(hidden.body.meta.pagination.total).toBe(0);
    expect(expectOk(await tp.api.get(`${G()}/achievements/first_ticket?userId=${bo.id}`, { key: ada.key }), 200).unlockedAt).toBeNull();
    expect(expectOk(await tp.api.get(`${G()}/summary`, { key: ada.key }), 200).topPlayers.map((e: any) => e.memberId)).toEqual([ada.id]);
    expectOk(await tp.api.patch(prefs, { boringMode: false }, { key: team.sk_live }), 200);
    await playerWhen(tp, team, ada.key, bo.id, (x) => !x.boringMode, 'boring mode off');
    expect(expectOk(await tp.api.get(`${G()}/player/${bo.id}/xp-history`, { key: ada.key }), 200).length).toBeGreaterThan(3);
  });
});
