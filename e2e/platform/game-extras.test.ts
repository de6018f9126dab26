/** The designed game operations through the gateway (each answer is checked against the OpenAPI document by the client). */
import { startTestPlatform, type TeamKeys, type TestPlatform } from '../support/platform';
import { eventually, expectError, expectOk } from './helpdesk-helpers';
import { closeTicket, customerTicket, playerWhen } from './game-helpers';
import { addMember, WorkspaceEvents, type TestMember } from './workspace-helpers';

let tp: TestPlatform;
let team: TeamKeys;
let ada: TestMember;
let bo: TestMember;
const G = () => `/teams/${team.teamId}/game`;

beforeAll(async () => {
  tp = await startTestPlatform();
  const log = await WorkspaceEvents.start(tp);
  team = await tp.createTeam('Quest Co');
  ada = await addMember(tp, log, team, 'agent', team.sk_live);
  bo = await addMember(tp, log, team, 'agent', team.sk_live);
  // Bo closes four urgent customer tickets: 200 XP (level 2, one skill point) and 110 gold.
  for (let i = 0; i < 4; i++) await closeTicket(tp, team, bo.key, (await customerTicket(tp, team, bo.key, 'urgent')).id);
  await playerWhen(tp, team, bo.key, bo.id, (p) => p.stats.ticketsClosed === 4, 'four closes');
}, 120_000);
afterAll(async () => {
  await tp?.stop();
}, 60_000);

describe('game: the designed operations', () => {
  it('quests: progress from closes, claim once, unfinished refused', async () => {
    const quests = expectOk(await tp.api.get(`${G()}/quests`, { key: bo.key }), 200);
    expect(quests.find((q: any) => q.key === 'daily_close_3')).toMatchObject({ progress: 3, completed: true, claimed: false });
    expect(expectOk(await tp.api.post(`${G()}/quests/daily_close_3/claim`, {}, { key: bo.key }), 200)).toMatchObject({ claimed: true });
    expectError(await tp.api.post(`${G()}/quests/daily_close_3/claim`, {}, { key: bo.key }), 409, 'conflict_error', 'already_done', 'questKey');
    expectError(await tp.api.post(`${G()}/quests/weekly_close_20/claim`, {}, { key: bo.key }), 422, 'validation_error', 'game_rule_violation', 'questKey');
  });

  it('skills: the tree, spending a point, unknown skill, no point left', async () => {
    expect(expectOk(await tp.api.get(`${G()}/skills`, { key: bo.key }), 200)).toHaveLength(4);
    expect(expectOk(await tp.api.post(`${G()}/skills/boss_slayer/upgrade`, {}, { key: bo.key }), 200)).toMatchObject({ skills: { boss_slayer: { level: 1 } }, availableSkillPoints: 0 });
    expectError(await tp.api.post(`${G()}/skills/boss_slayer/upgrade`, {}, { key: bo.key }), 422, 'validation_error', 'insufficient_skill_points');
    expectError(await tp.api.post(`${G()}/skills/flying/upgrade`, {}, { key: bo.key }), 404, 'not_found_error', 'resource_not_found', 'skillKey');
  });

  it('cosmetics: the shop, buying with gold, not enough gold, equipping', async () => {
    expect(expectOk(await tp.api.get(`${G()}/cosmetics`, { key: bo.key }), 200).length).toBeGreaterThan(4);
    expectError(await tp.api.post(`${G()}/cosmetics/flame_frame/purchase`, {}, { key: bo.key }), 422, 'validation_error', 'insufficient_gold');
    expect(expectOk(await tp.api.post(`${G()}/cosmetics/bronze_frame/purchase`, {}, { key: bo.key }), 200).cosmetics.owned).toEqual(['bronze_frame']);
    expect(expectOk(await tp.api.post(`${G()}/cosmetics/equip`, { avatarFrame: 'bronze_frame' }, { key: bo.key }), 200).cosmetics.avatarFrame).toBe('bronze_frame');
  });

  it('kudos, achievements, seasons, puzzle, leaderboard, boss history, prestige', async () => {
    expectError(await tp.api.post(`${G()}/kudos`, { toMemberId: bo.id }, { key: bo.key }), 400, 'invalid_request_error', 'parameter_invalid', 'toMemberId');
    expect(expectOk(await tp.api.post(`${G()}/kudos`, { toMemberId: ada.id, message: 'Great save!' }, { key: bo.key }), 201)).toMatchObject({ fromMemberId: bo.id, toMemberId: ada.id });
    expect(expectOk(await tp.api.get(`${G()}/kudos?userId=${ada.id}`, { key: ada.key }), 200)).toHaveLength(1);
    const achievements = expectOk(await tp.api.get(`${G()}/achievements?userId=${bo.id}`, { key: bo.key }), 200);
    expect(achievements.find((a: any) => a.key === 'first_ticket').unlockedAt).toEqual(expect.any(String));
    expect(expectOk(await tp.api.get(`${G()}/player/${bo.id}/achievements`, { key: bo.key }), 200).map((a: any) => a.key)).toEqual(['first_ticket']);
    expect(expectOk(await tp.api.get(`${G()}/seasons/current`, { key: bo.key }), 200)).toMatchObject({ id: expect.stringMatching(/^\d{4}-Q[1-4]$/) });
    expect(expectOk(await tp.api.get(`${G()}/seasons?userId=${bo.id}`, { key: bo.key }), 200)).toHaveLength(4);
    const puzzle = expectOk(await tp.api.get(`${G()}/puzzles/daily?userId=${bo.id}`, { key: bo.key }), 200);
    expect(puzzle).toMatchObject({ answered: false, tickets: expect.any(Array) });
    expect(expectOk(await tp.api.post(`${G()}/puzzles/daily/answer`, { answer: ['A', 'B', 'C', 'D'] }, { key: bo.key }), 200)).toMatchObject({ answered: true });
    expectError(await tp.api.post(`${G()}/puzzles/daily/answer`, { answer: ['A', 'B', 'C', 'D'] }, { key: bo.key }), 409, 'conflict_error', 'already_done');
    const board = await eventually('the leaderboard', async () => {
      const b = expectOk(await tp.api.get(`${G()}/leaderboard?metric=tickets_closed&period=week`, { key: bo.key }), 200);
      return b.entries.length ? b : null;
    });
    expect(board.entries[0]).toMatchObject({ rank: 1, memberId: bo.id, value: 4 });
    expect(expectOk(await tp.api.get(`${G()}/boss/history`, { key: bo.key }), 200)).toEqual([]);
    expectError(await tp.api.post(`${G()}/prestige`, {}, { key: bo.key }), 422, 'validation_error', 'game_rule_violation');
    expectError(await tp.api.post(`${G()}/skills/reset`, {}, { key: team.pk_live }), 403, 'authorization_error', 'publishable_key_write');
  });
});
