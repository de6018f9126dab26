/** The game through the whole platform: real tickets closed by members pay XP, bosses are summoned and hit, switches and boring mode. */
import { startTestPlatform, type TeamKeys, type TestPlatform } from '../support/platform';
import { eventually, expectError, expectOk } from './helpdesk-helpers';
import { closeTicket, customerTicket, playerWhen } from './game-helpers';
import { addMember, WorkspaceEvents, type TestMember } from './workspace-helpers';

let tp: TestPlatform;
let log: WorkspaceEvents;
let team: TeamKeys;
let ada: TestMember;
let bo: TestMember;
let scout: TestMember;
const G = () => `/teams/${team.teamId}/game`;

beforeAll(async () => {
  tp = await startTestPlatform();
  log = await WorkspaceEvents.start(tp);
  team = await tp.createTeam('Game Co');
  // Members with live keys: the live partition's game is the team's game.
  ada = await addMember(tp, log, team, 'agent', team.sk_live);
  bo = await addMember(tp, log, team, 'agent', team.sk_live);
  scout = await addMember(tp, log, team, 'spectator', team.sk_live);
}, 90_000);
afterAll(async () => {
  await tp?.stop();
}, 60_000);

describe('game: XP from real tickets', () => {
  it('a customer ticket closed by a member pays once; the workspace member follows; a member\'s own ticket pays nothing', async () => {
    const t = await customerTicket(tp, team, ada.key, 'urgent');
    expect(t.openedBy).toBe('customer');
    await closeTicket(tp, team, ada.key, t.id);
    const p = await playerWhen(tp, team, ada.key, ada.id, (x) => x.xp > 0, 'XP for the close');
    expect(p).toMatchObject({ object: 'player_stats', memberId: ada.id, level: 1, xp: 50, gold: 25 + 10, stats: { ticketsClosed: 1 } });

    // Re-open and close again: nothing more. A ticket the member opened: nothing.
    expectOk(await tp.api.patch(`/teams/${team.teamId}/tickets/${t.id}`, { status: 'open' }, { key: ada.key }), 200);
    await closeTicket(tp, team, ada.key, t.id);
    const own = expectOk(await tp.api.post(`/teams/${team.teamId}/tickets`, { title: 'Call back' }, { key: ada.key }), 201);
    await closeTicket(tp, team, ada.key, own.id);
    const marker = await customerTicket(tp, team, ada.key, 'low');
    await closeTicket(tp, team, ada.key, marker.id);
    const after = await playerWhen(tp, team, ada.key, ada.id, (x) => x.stats.ticketsClosed === 2, 'the marker close');
    expect(after.xp).toBe(50 + 10);

    const member = await eventually('the member\'s xp', async () => {
      const m = expectOk(await tp.api.get(`/teams/${team.teamId}/members/${ada.id}`, { key: team.sk_live }), 200);
      return m.xp === 60 ? m : null;
    });
    expect(member).toMatchObject({ level: 1, xp: 60 });
  });

  it('the test partition plays a separate game', async () => {
    expect(expectOk(await tp.api.get(`${G()}/player/${ada.id}`, { key: team.sk_test }), 200)).toMatchObject({ xp: 0, stats: { ticketsClosed: 0 } });
  });

  it('bad inputs: missing userId, another team\'s member, publishable key, no game_participation', async () => {
    // Without userId: the key's own member (the owner's key here); a key of no member must name one.
    expect(expectOk(await tp.api.get(`${G()}/player`, { key: ada.key }), 200).memberId).toBe(ada.id);
    const operatorKey = (await tp.platform.gateway.admin.createKey({ teamId: team.teamId, type: 'secret', mode: 'live', memberId: null })).key;
    expectError(await tp.api.get(`${G()}/player`, { key: operatorKey }), 400, 'invalid_request_error', 'parameter_missing', 'userId');
    const other = expectOk(await tp.api.get(`/teams/${tp.team.teamId}/members`, { key: tp.team.sk_live }), 200)[0];
    expectError(await tp.api.get(`${G()}/player?userId=${other.id}`, { key: team.sk_live }), 404, 'not_found_error', 'resource_not_found', 'userId');
    expectError(await tp.api.get(`${G()}/player/${ada.id}`, { key: team.pk_live }), 403, 'authorization_error', 'publishable_key_forbidden');
    expectError(await tp.api.get(`${G()}/player/${ada.id}`, { key: scout.key }), 403, 'authorization_error', 'insufficient_permissions');
  });
});

describe('game: boss battles', () => {
  const tickets: string[] = [];
  it('too few customer tickets: 422; five summon an easy boss (201); a second spawn is 409', async () => {
    expectError(await tp.api.post(`${G()}/boss/spawn`, {}, { key: bo.key }), 422, 'validation_error', 'not_enough_tickets');
    for (let i = 0; i < 5; i++) tickets.push((await customerTicket(tp, team, bo.key)).id);
    const spawned = await eventually('the spawn', async () => {
      const r = await tp.api.post(`${G()}/boss/spawn`, {}, { key: bo.key });
      return r.status === 201 ? r.body.data : null;
    });
    expect(spawned).toMatchObject({ object: 'boss_state', active: true, boss: { difficulty: 'easy', maxHealth: 500, currentHealth: 500, healthPercent: 1 } });
    expectError(await tp.api.post(`${G()}/boss/spawn`, {}, { key: bo.key }), 409, 'conflict_error', 'boss_already_active');
    expect(expectOk(await tp.api.get(`${G()}/boss/active`, { key: bo.key }), 200)).toEqual({ object: 'boss_active', active: true });
  });

  it('a closed customer ticket hits once (the second is 409); open tickets, other partitions and damage values are refused', async () => {
    expectError(await tp.api.post(`${G()}/boss/damage`, { ticketId: tickets[0] }, { key: bo.key }), 422, 'validation_error', 'ticket_not_eligible', 'ticketId');
    await closeTicket(tp, team, bo.key, tickets[0]!);
    await playerWhen(tp, team, bo.key, bo.id, (x) => x.stats.ticketsClosed === 1, 'the close');
    expectError(await tp.api.post(`${G()}/boss/damage`, { ticketId: tickets[0], damage: 500 }, { key: bo.key }), 400, 'invalid_request_error', 'parameter_invalid', 'damage');
    expectError(await tp.api.post(`${G()}/boss/damage`, { ticketId: tickets[0] }, { key: team.sk_test }), 404, 'not_found_error', 'resource_not_found', 'ticketId');
    const hit = expectOk(await tp.api.post(`${G()}/boss/damage`, { ticketId: tickets[0], userName: 'Bo the Brave' }, { key: bo.key }), 200);
    expect(hit).toMatchObject({ object: 'boss_damage', damage: 20, currentHealth: 480, healthPercent: 0.96, previousHealthPercent: 1, isDefeated: false, isKillingBlow: false });
    expectError(await tp.api.post(`${G()}/boss/damage`, { ticketId: tickets[0] }, { key: bo.key }), 409, 'conflict_error', 'boss_hit_already_dealt', 'ticketId');
    const state = expectOk(await tp.api.get(`${G()}/boss`, { key: bo.key }), 200);
    expect(state.boss.participants).toEqual([{ memberId: bo.id, name: 'Bo the Brave', damage: 20, hits: 1, lastHitAt: expect.any(String) }]);
  });

  it('members are notified of the spawn', async () => {
    const list = await eventually('boss_spawned', async () => {
      const d = expectOk(await tp.api.get(`/teams/${team.teamId}/notifications?userId=${ada.id}&type=boss_spawned`, { key: team.sk_live }), 200);
      return d.length ? d : null;
    });
    expect(list[0]).toMatchObject({ type: 'boss_spawned', title: 'Backlog Goblin appeared (easy)' });
  });

  it('bossBattlesEnabled false: boss operations are 403 feature_disabled', async () => {
    expectOk(await tp.api.patch(`/teams/${team.teamId}/preferences`, { bossBattlesEnabled: false }, { key: team.sk_live }), 200);
    await eventually('the switch', async () => (await tp.api.get(`${G()}/boss`, { key: bo.key })).status === 403);
    expectError(await tp.api.get(`${G()}/boss/active`, { key: bo.key }), 403, 'authorization_error', 'feature_disabled');
    expectError(await tp.api.post(`${G()}/boss/spawn`, {}, { key: bo.key }), 403, 'authorization_error', 'feature_disabled');
    expectOk(await tp.api.patch(`/teams/${team.teamId}/preferences`, { bossBattlesEnabled: true }, { key: team.sk_live }), 200);
    await eventually('the switch back', async () => (await tp.api.get(`${G()}/boss`, { key: bo.key })).status === 200);
  });

  it('boring mode hides XP and bosses in the player object; it reappears when switched off', async () => {
    const prefs = `/teams/${team.teamId}/members/${ada.id}/preferences`;
    expectOk(await tp.api.patch(prefs, { boringMode: true }, { key: team.sk_live }), 200);
    const hidden = await playerWhen(tp, team, ada.key, ada.id, (x) => x.boringMode, 'boring mode');
    expect(hidden).toMatchObject({ xp: null, level: null, stats: { bossesDefeated: null, achievementsUnlocked: null, ticketsClosed: 2 } });
    expectOk(await tp.api.patch(prefs, { boringMode: false }, { key: team.sk_live }), 200);
    expect(await playerWhen(tp, team, ada.key, ada.id, (x) => !x.boringMode, 'boring mode off')).toMatchObject({ xp: 60 });
  });
});
