/**
 * The game's refusals and switches through the gateway: every bad input answers the documented
 * error and changes nothing; merges pay nothing; kudos limits; each feature flag switches its
 * feature; boring mode hides while XP accrues and keeps game notifications away.
 */
import { startTestPlatform, type TeamKeys, type TestPlatform } from '../support/platform';
import { eventually, expectError, expectOk } from './helpdesk-helpers';
import { closeTicket, customerTicket, playerWhen } from './game-helpers';
import { addMember, WorkspaceEvents, type TestMember } from './workspace-helpers';

let tp: TestPlatform;
let team: TeamKeys;
let ada: TestMember;
let bo: TestMember;
let cy: TestMember;
let di: TestMember;
let scout: TestMember;
const G = () => `/teams/${team.teamId}/game`;
const get = async (path: string, key: string) => expectOk(await tp.api.get(`${G()}${path}`, { key }), 200);
const player = (m: TestMember) => get(`/player/${m.id}`, m.key);

beforeAll(async () => {
  tp = await startTestPlatform();
  const log = await WorkspaceEvents.start(tp);
  team = await tp.createTeam('Rules Co');
  ada = await addMember(tp, log, team, 'agent', team.sk_live);
  bo = await addMember(tp, log, team, 'agent', team.sk_live);
  cy = await addMember(tp, log, team, 'agent', team.sk_live);
  di = await addMember(tp, log, team, 'agent', team.sk_live);
  scout = await addMember(tp, log, team, 'spectator', team.sk_live);
}, 120_000);
afterAll(async () => {
  await tp?.stop();
}, 60_000);

describe('game: refusals change nothing', () => {
  jest.setTimeout(120_000);
  const customer: string[] = [];

  it('boring mode: no boss notification, XP accrues while hidden and reappears', async () => {
    expectOk(await tp.api.patch(`/teams/${team.teamId}/members/${di.id}/preferences`, { boringMode: true }, { key: team.sk_live }), 200);
    await playerWhen(tp, team, di.key, di.id, (p) => p.boringMode, 'boring mode');
    for (let i = 0; i < 5; i++) customer.push((await customerTicket(tp, team, bo.key, 'normal')).id);
    await closeTicket(tp, team, di.key, customer[4]!);
    await eventually('the spawn', async () => (await tp.api.post(`${G()}/boss/spawn`, {}, { key: bo.key })).status === 201);
    const notified = (m: TestMember) => tp.api.get(`/teams/${team.teamId}/notifications`, { key: team.sk_live, query: { userId: m.id, type: 'boss_spawned' } });
    await eventually('Ada is told of the boss', async () => expectOk(await notified(ada), 200).length === 1);
    expect(expectOk(await notified(di), 200)).toEqual([]);

    // Her close paid while hidden (the ledger keeps counting); switched off, it shows.
    const hidden = await player(di);
    expect(hidden).toMatchObject({ boringMode: true, xp: null, level: null, stats: { bossesDefeated: null, achievementsUnlocked: null } });
    expectOk(await tp.api.patch(`/teams/${team.teamId}/members/${di.id}/preferences`, { boringMode: false }, { key: team.sk_live }), 200);
    expect(await playerWhen(tp, team, di.key, di.id, (p) => !p.boringMode && p.stats.ticketsClosed === 1, 'boring mode off and the close paid')).toMatchObject({ xp: 20, stats: { ticketsClosed: 1, achievementsUnlocked: 1 } });
  });

  it('boss damage: a member\'s ticket, an open one, another team\'s or partition\'s, another team\'s member, no permission, a publishable key: refused, the boss untouched', async () => {
    const own = expectOk(await tp.api.post(`/teams/${team.teamId}/tickets`, { title: 'Call back' }, { key: ada.key }), 201);
    expect(own.openedBy).toBe('member');
    await closeTicket(tp, team, ada.key, own.id);
    const foreign = await customerTicket(tp, tp.team, tp.team.sk_live);
    await closeTicket(tp, tp.team, tp.team.sk_live, foreign.id);
    const testTicket = await customerTicket(tp, team, team.sk_test);
    await closeTicket(tp, team, team.sk_test, testTicket.id);
    const other = expectOk(await tp.api.get(`/teams/${tp.team.teamId}/members`, { key: tp.team.sk_live }), 200)[0];
    const damage = (body: Record<string, unknown>, key = ada.key) => tp.api.post(`${G()}/boss/damage`, body, { key });

    // Ada's marker close: once the game counted it, it has seen her own ticket's close before it (one member's closes apply in order).
    await closeTicket(tp, team, ada.key, customer[0]!);
    await playerWhen(tp, team, ada.key, ada.id, (p) => p.stats.ticketsClosed === 1, 'the marker close');
    expectError(await damage({ ticketId: own.id }), 422, 'validation_error', 'ticket_not_eligible', 'ticketId');
    expectError(await damage({ ticketId: customer[1] }), 422, 'validation_error', 'ticket_not_eligible', 'ticketId');
    expectError(await damage({ ticketId: foreign.id }), 404, 'not_found_error', 'resource_not_found', 'ticketId');
    expectError(await damage({ ticketId: testTicket.id }), 404, 'not_found_error', 'resource_not_found', 'ticketId');
    expectError(await damage({ ticketId: customer[0], userId: other.id }), 404, 'not_found_error', 'resource_not_found', 'userId');
    expectError(await damage({}), 400, 'invalid_request_error', 'parameter_missing', 'ticketId');
    expectError(await damage({ ticketId: 42 }), 400, 'invalid_request_error', 'parameter_invalid', 'ticketId');
    expectError(await damage({ ticketId: customer[0] }, scout.key), 403, 'authorization_error', 'insufficient_permissions');
    expect((await damage({ ticketId: customer[0] }, team.pk_live)).status).toBe(403);
    expectError(await tp.api.post(`${G()}/boss/spawn`, {}, { key: scout.key }), 403, 'authorization_error', 'insufficient_permissions');
    expect((await get('/boss', ada.key)).boss).toMatchObject({ currentHealth: 500, totalDamage: 0, participants: [] });
    // Ada's own ticket paid nothing either.
    expect(await player(ada)).toMatchObject({ xp: 20, stats: { ticketsClosed: 1 } });
  });

  it('merging pays nothing and a merged ticket cannot hit; the target pays once when closed', async () => {
    const target = customer[2]!;
    const source = customer[3]!;
    expectOk(await tp.api.post(`/teams/${team.teamId}/tickets/${target}/merge`, { sourceTicketIds: [source] }, { key: bo.key }), 200);
    await closeTicket(tp, team, bo.key, target);
    const p = await playerWhen(tp, team, bo.key, bo.id, (x) => x.stats.ticketsClosed === 1, 'the target close');
    expect(p.xp).toBe(20);
    await eventually('the merge reaches the game', async () => {
      const r = await tp.api.post(`${G()}/boss/damage`, { ticketId: source }, { key: bo.key });
      return r.status === 422 ? r : null;
    });
    expectError(await tp.api.post(`${G()}/boss/damage`, { ticketId: source }, { key: bo.key }), 422, 'validation_error', 'ticket_not_eligible', 'ticketId');
    expect(await player(bo)).toMatchObject({ xp: 20, stats: { ticketsClosed: 1 } });
  });

  it('skills, cosmetics, quests, puzzle, kudos: unknown keys, not enough gold or points, unfinished or repeated claims, kudos to oneself: refused, nothing spent', async () => {
    const before = await player(bo);
    expect(before).toMatchObject({ gold: 20, availableSkillPoints: 0 });
    const post = (path: string, body: unknown = {}, key = bo.key) => tp.api.post(`${G()}${path}`, body, { key });
    expectError(await post('/skills/flying/upgrade'), 404, 'not_found_error', 'resource_not_found', 'skillKey');
    expectError(await post('/skills/swift_resolver/upgrade'), 422, 'validation_error', 'insufficient_skill_points');
    expectError(await post('/skills/reset'), 422, 'validation_error', 'game_rule_violation');
    expectError(await post('/cosmetics/flame_frame/purchase'), 422, 'validation_error', 'insufficient_gold');
    expectError(await post('/cosmetics/rainbow_frame/purchase'), 404, 'not_found_error', 'resource_not_found', 'cosmeticKey');
    expectError(await post('/cosmetics/equip', { avatarFrame: 'bronze_frame' }), 422, 'validation_error', 'game_rule_violation', 'avatarFrame');
    expectError(await post('/quests/daily_close_3/claim'), 422, 'validation_error', 'game_rule_violation', 'questKey');
    expectError(await post('/quests/daily_fly/claim'), 404, 'not_found_error', 'resource_not_found', 'questKey');
    expectError(await post('/puzzles/daily/answer', { answer: ['A', 'B', 'C'] }), 400, 'invalid_request_error', 'parameter_invalid', 'answer');
    expectError(await post('/kudos', { toMemberId: bo.id }), 400, 'invalid_request_error', 'parameter_invalid', 'toMemberId');
    expectError(await post('/kudos', { toMemberId: 'mem_nobody123' }), 404, 'not_found_error', 'resource_not_found', 'toMemberId');
    expectError(await post('/kudos', { toMemberId: ada.id, gold: 100 }), 400, 'invalid_request_error', 'parameter_invalid', 'gold');
    expectError(await post('/kudos', { toMemberId: ada.id }, scout.key), 403, 'authorization_error', 'insufficient_permissions');
    expectError(await post('/kudos', { toMemberId: ada.id }, team.pk_live), 403, 'authorization_error', 'publishable_key_write');

    const after = await player(bo);
    expect(after).toEqual(before);
    expect(await get(`/player/${bo.id}/inventory`, bo.key)).toMatchObject({ gold: 20, items: [] });
    expect(await get(`/player/${ada.id}/kudos`, bo.key)).toEqual([]);
    expect((await get(`/player/${bo.id}/activity`, bo.key)).puzzles).toMatchObject({ answered: 0 });
  });

  it('kudos stop farming: 3 a day per giver, one a week to the same teammate', async () => {
    const give = (from: TestMember, to: TestMember) => tp.api.post(`${G()}/kudos`, { toMemberId: to.id }, { key: from.key });
    const adaBefore = (await player(ada)).xp;
    for (const to of [ada, cy, di]) expectOk(await give(bo, to), 201);
    expectError(await give(bo, scout), 422, 'validation_error', 'game_rule_violation');
    expectOk(await give(cy, ada), 201);
    expectError(await give(cy, ada), 422, 'validation_error', 'game_rule_violation', 'toMemberId');
    expect(await get(`/player/${ada.id}/kudos`, ada.key)).toHaveLength(2);
    expect((await player(ada)).xp).toBe(adaBefore + 20);
    expect((await player(bo)).stats).toMatchObject({ ticketsClosed: 1 });
    expect(await get(`/player/${bo.id}/activity`, bo.key)).toMatchObject({ kudos: { given: 3, received: 0 } });
  });
});

describe('game: prestige and skill resets', () => {
  jest.setTimeout(120_000);
  it('prestige at the level cap: level 1 again, +5% on XP from then on; a skill reset gives the points back for 100 gold', async () => {
    expectError(await tp.api.post(`${G()}/prestige`, {}, { key: bo.key }), 422, 'validation_error', 'game_rule_violation');
    // Level 50 takes 122,500 XP in one season and a spent skill point: seeded into the game's store, not earned here.
    await tp.platform.game.conn.collection('players').updateOne(
      { teamId: team.teamId, mode: 'live', memberId: bo.id },
      { $set: { seasonXp: 122_500, skillPointsEarned: 1, skillPointsAvailable: 1 }, $inc: { gold: 200 } },
    );
    expect(await player(bo)).toMatchObject({ level: 50, xpToNextLevel: 0, xpProgress: 1, gold: 220 });
    expect(expectOk(await tp.api.post(`${G()}/prestige`, {}, { key: bo.key }), 200)).toMatchObject({ level: 1, xp: 0, prestigeLevel: 1, prestigeBonus: 0.05 });
    expectError(await tp.api.post(`${G()}/prestige`, {}, { key: bo.key }), 422, 'validation_error', 'game_rule_violation');

    expect(expectOk(await tp.api.post(`${G()}/skills/boss_slayer/upgrade`, {}, { key: bo.key }), 200)).toMatchObject({ availableSkillPoints: 0, skills: { boss_slayer: { level: 1 } } });
    expect(expectOk(await tp.api.post(`${G()}/skills/reset`, {}, { key: bo.key }), 200)).toMatchObject({ availableSkillPoints: 1, gold: 120, skills: { boss_slayer: { level: 0 } } });

    const t = await customerTicket(tp, team, bo.key, 'normal');
    await closeTicket(tp, team, bo.key, t.id);
    expect(await playerWhen(tp, team, bo.key, bo.id, (p) => p.stats.ticketsClosed === 2, 'the close after prestige')).toMatchObject({ level: 1, xp: 21 });
  });
});

describe('game: feature flags', () => {
  jest.setTimeout(120_000);
  const flags = (body: Record<string, boolean>) => tp.api.patch(`/teams/${team.teamId}/settings/feature-flags`, body, { key: team.sk_live });
  const OFF = { achievementsEnabled: false, questsEnabled: false, leaderboardsEnabled: false, puzzlesEnabled: false, socialEnabled: false, cosmeticsEnabled: false, seasonsEnabled: false, skillTreesEnabled: false, bossBattlesEnabled: false };
  const gated: [string, string, unknown?][] = [
    ['GET', '/achievements'], ['GET', '/quests'], ['POST', '/quests/daily_close_3/claim', {}], ['GET', '/leaderboard'], ['GET', '/puzzles/daily'],
    ['POST', '/puzzles/daily/answer', { answer: ['A', 'B', 'C', 'D'] }], ['POST', '/kudos', { toMemberId: 'mem_nobody123' }], ['GET', '/cosmetics'], ['POST', '/cosmetics/bronze_frame/purchase', {}],
    ['GET', '/seasons/current'], ['GET', '/seasons'], ['GET', '/skills'], ['POST', '/skills/boss_slayer/upgrade', {}], ['GET', '/boss'], ['GET', '/boss/active'],
    ['POST', '/boss/spawn', {}], ['POST', '/boss/damage', { ticketId: 'tkt_anything01' }], ['GET', '/boss/history'],
  ];

  it('each switched-off feature answers 403 feature_disabled, and a close unlocks no achievement; the player object still answers', async () => {
    const bossBefore = (await get('/boss', cy.key)).boss.id;
    expectOk(await flags(OFF), 200);
    await eventually('the switches', async () => (await tp.api.get(`${G()}/skills`, { key: cy.key })).status === 403);
    for (const [method, path, body] of gated) {
      const res = method === 'GET' ? await tp.api.get(`${G()}${path}`, { key: cy.key }) : await tp.api.post(`${G()}${path}`, body, { key: cy.key });
      expectError(res, 403, 'authorization_error', 'feature_disabled');
    }
    const t = await customerTicket(tp, team, cy.key, 'low');
    await closeTicket(tp, team, cy.key, t.id);
    const p = await playerWhen(tp, team, cy.key, cy.id, (x) => x.stats.ticketsClosed === 1, 'Cy\'s close');
    // 10 XP and 5 gold from Bo's kudos, as much again from the low ticket; no First Blood.
    expect(p).toMatchObject({ xp: 10 + 10, gold: 5 + 5, stats: { achievementsUnlocked: 0 } });

    expectOk(await flags(Object.fromEntries(Object.keys(OFF).map((k) => [k, true]))), 200);
    await eventually('the switches back', async () => (await tp.api.get(`${G()}/boss`, { key: cy.key })).status === 200);
    // No boss came or went while battles were off.
    expect((await get('/boss', cy.key))).toMatchObject({ active: true, boss: { id: bossBefore } });
    expect((await get(`/player/${cy.id}/achievements`, cy.key))).toEqual([]);
  });
});
