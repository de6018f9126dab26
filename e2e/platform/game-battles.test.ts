/**
 * Boss battles through the gateway on a game clock the test moves: 50 concurrent hits, the same
 * ticket twice at once, the shield, enrage, regeneration, the escape, rewards, and the events that
 * webhooks and the audit log carry; then a season rollover.
 */
import { Receiver } from '@helpdesk/testing';
import { startTestPlatform, type TeamKeys, type TestPlatform } from '../support/platform';
import { eventually, expectError, expectOk } from './helpdesk-helpers';
import { playerWhen } from './game-helpers';
import { StreamClient, streamPath } from './stream-helpers';
import { addMember, WorkspaceEvents, type TestMember } from './workspace-helpers';

const MINUTE = 60_000;
/** The game's "now": frozen, moved only by the test (the boss heals and escapes on it, seasons roll over on it). */
let now = Date.now();
const gameClock = { now: () => new Date(now) };

let tp: TestPlatform;
let rx: Receiver;
let stream: StreamClient;
/** Game event types that came on the live partition's event stream. */
const streamed: string[] = [];
const STREAMED = ['game.boss.spawned', 'game.boss.defeated', 'game.boss.escaped', 'game.xp_awarded'];
let team: TeamKeys;
let ada: TestMember;
let bo: TestMember;
const G = () => `/teams/${team.teamId}/game`;
const T = () => `/teams/${team.teamId}/tickets`;

beforeAll(async () => {
  rx = await Receiver.start();
  tp = await startTestPlatform({ gameClock, webhooks: { allowLoopback: true } });
  const log = await WorkspaceEvents.start(tp);
  team = await tp.createTeam('Raid Co');
  ada = await addMember(tp, log, team, 'agent', team.sk_live);
  bo = await addMember(tp, log, team, 'agent', team.sk_live);
  expectOk(await tp.api.post(`/teams/${team.teamId}/webhooks`, { name: 'game feed', url: rx.url('/hook'), events: ['game.*'] }, { key: team.sk_live }), 201);
  stream = new StreamClient(`${tp.baseUrl}${streamPath(team.teamId)}?types=game.*`, team.sk_live);
  for (const type of STREAMED) stream.es.addEventListener(type, () => streamed.push(type));
  await stream.opened;
}, 90_000);
afterAll(async () => {
  stream?.close();
  await tp?.stop();
  await rx?.close();
}, 60_000);

/** `n` customer tickets of `priority`, created through the API (a few at a time). */
async function customerTickets(n: number, priority: string): Promise<{ id: string; createdAt: string }[]> {
  const out: { id: string; createdAt: string }[] = [];
  for (let i = 0; i < n; i += 10) {
    const batch = Array.from({ length: Math.min(10, n - i) }, () =>
      tp.api.post(T(), { title: 'Cannot log in', priority, messages: [{ sender: 'customer', content: 'Help, please.' }] }, { key: team.sk_live }),
    );
    for (const res of await Promise.all(batch)) out.push(expectOk(res, 201));
  }
  return out;
}

/** Closes the tickets with the member's key, then waits until the game has counted all of the member's closes. */
async function closeAll(m: TestMember, ids: string[], closedBefore: number) {
  for (let i = 0; i < ids.length; i += 10) {
    await Promise.all(ids.slice(i, i + 10).map(async (id) => expectOk(await tp.api.patch(`${T()}/${id}`, { status: 'closed' }, { key: m.key }), 200)));
  }
  await playerWhen(tp, team, m.key, m.id, (p) => p.stats.ticketsClosed === closedBefore + ids.length, `${ids.length} closes`);
}

const hit = (m: TestMember, ticketId: string) => tp.api.post(`${G()}/boss/damage`, { ticketId }, { key: m.key });
const boss = async () => expectOk(await tp.api.get(`${G()}/boss`, { key: ada.key }), 200);
const get = async (m: TestMember) => expectOk(await tp.api.get(`${G()}/player/${m.id}`, { key: m.key }), 200);
const hooks = (type: string) => rx.forPath('/hook').map((r) => JSON.parse(r.body)).filter((b) => b.type === type);

describe('game: a boss battle under fire', () => {
  jest.setTimeout(240_000);
  let killer = '';

  it('50 concurrent hits with distinct tickets: the boss loses exactly their damage, one killing blow, one enrage; rewards by share', async () => {
    await customerTickets(5, 'low');
    const spawned = await eventually('the spawn', async () => {
      const r = await tp.api.post(`${G()}/boss/spawn`, {}, { key: ada.key });
      return r.status === 201 ? r.body.data : null;
    }, 60_000);
    expect(spawned.boss).toMatchObject({ difficulty: 'easy', maxHealth: 500, currentHealth: 500 });

    // 25 low tickets (10 each) closed by Ada, 25 normal ones (20 each) by Bo: 750 damage on offer for 500 health.
    const low = (await customerTickets(25, 'low')).map((t) => t.id);
    const normal = (await customerTickets(25, 'normal')).map((t) => t.id);
    await closeAll(ada, low, 0);
    await closeAll(bo, normal, 0);

    const answers = await Promise.all([...low.map((id) => hit(ada, id)), ...normal.map((id) => hit(bo, id))]);
    const hits = answers.filter((a) => a.status === 200).map((a) => a.body.data);
    for (const a of answers.filter((x) => x.status !== 200)) expectError(a, 409, 'conflict_error', 'boss_not_active');
    expect(hits.reduce((s, d) => s + d.damage, 0)).toBe(500);
    expect(hits.filter((d) => d.isKillingBlow)).toHaveLength(1);
    expect(hits.filter((d) => d.isDefeated)).toHaveLength(1);
    expect(hits.filter((d) => d.enrageTriggered)).toHaveLength(1);
    // Each answer's health is the one its hit left: no two hits saw the same health.
    expect(new Set(hits.map((d) => d.currentHealth)).size).toBe(hits.length);
    killer = hits.find((d) => d.isKillingBlow).memberId;

    const s = await boss();
    expect(s).toMatchObject({ active: false, boss: { status: 'defeated', currentHealth: 0, totalDamage: 500, abilities: { enrage: { active: true } }, rewards: { xpMultiplier: 1.5 } } });
    expect(s.boss.participants.reduce((n: number, p: any) => n + p.damage, 0)).toBe(500);
    expect(s.boss.participants.reduce((n: number, p: any) => n + p.hits, 0)).toBe(hits.length);

    // Rewards: both fought, the killer got the final blow; the pool (250 XP × 1.5 enraged, 100 gold) by share, +20% for the kill.
    const defeated = await eventually('game.boss.defeated on the webhook', () => hooks('game.boss.defeated')[0], 30_000);
    const rewards = defeated.data.rewards as { memberId: string; damage: number; xp: number; gold: number; finalBlow: boolean }[];
    expect(rewards.filter((r) => r.finalBlow).map((r) => r.memberId)).toEqual([killer]);
    for (const r of rewards) expect(r.xp).toBe(Math.floor(375 * (r.damage / 500 + (r.finalBlow ? 0.2 : 0))));
    for (const m of [ada, bo]) {
      const p = await playerWhen(tp, team, m.key, m.id, (x) => x.stats.bossesDefeated === 1, 'the boss rewards');
      expect(p.stats.finalBlows).toBe(m.id === killer ? 1 : 0);
      const history = expectOk(await tp.api.get(`${G()}/player/${m.id}/xp-history`, { key: m.key }), 200);
      expect(history.find((h: any) => h.reason === 'boss_reward')).toMatchObject({ xp: rewards.find((r) => r.memberId === m.id)!.xp });
    }
  });

  it('a medium boss: an urgent ticket breaks its shield at once; the same ticket twice at once is one 200 and one 409; it heals while left alone', async () => {
    const urgent = (await customerTickets(1, 'urgent'))[0]!;
    const normal = (await customerTickets(9, 'normal')).map((t) => t.id);
    await closeAll(ada, [urgent.id, ...normal], 25);
    // The spawn window starts at the first of these ten tickets: a medium boss.
    now = Date.parse(urgent.createdAt) + 5 * MINUTE;
    const spawned = expectOk(await tp.api.post(`${G()}/boss/spawn`, {}, { key: bo.key }), 201);
    expect(spawned.boss).toMatchObject({ difficulty: 'medium', maxHealth: 1500, abilities: { shield: { active: true, hitsRemaining: 2 } } });

    expect(expectOk(await hit(ada, urgent.id), 200)).toMatchObject({ damage: 0, currentHealth: 1500, shieldBlocked: true, shieldBroken: true, activeAbilities: ['heal'] });
    const [a, b] = await Promise.all([hit(bo, normal[0]!), hit(ada, normal[0]!)]);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    expectError([a, b].find((r) => r.status === 409)!, 409, 'conflict_error', 'boss_hit_already_dealt', 'ticketId');
    expect([a, b].find((r) => r.status === 200)!.body.data).toMatchObject({ damage: 20, currentHealth: 1480, shieldBlocked: false });

    // Eight more at once, not enough to kill: the health is exactly max minus every hit's damage.
    const rest = (await Promise.all(normal.slice(1).map((id) => hit(bo, id)))).map((r) => expectOk(r, 200));
    const dealt = 20 + rest.reduce((n, d) => n + d.damage, 0);
    expect(dealt).toBe(20 + 8 * 20);
    expect((await boss()).boss).toMatchObject({ currentHealth: 1500 - dealt, totalDamage: dealt, phase: 1 });

    // Two whole minutes without a hit: 1% of max health a minute.
    now += 2 * MINUTE + 1_000;
    expect((await boss()).boss).toMatchObject({ currentHealth: 1500 - dealt + 30, abilities: { heal: { totalHealed: 30, perMinute: 15 } } });
  });

  it('left for 24 hours it escapes, without rewards; a spawn then needs new tickets', async () => {
    now += 24 * 60 * MINUTE;
    expect(await boss()).toMatchObject({ active: false, boss: { difficulty: 'medium', status: 'escaped' } });
    expect(expectOk(await tp.api.get(`${G()}/boss/active`, { key: bo.key }), 200)).toEqual({ object: 'boss_active', active: false });
    for (const m of [ada, bo]) expect(expectOk(await tp.api.get(`${G()}/player/${m.id}`, { key: m.key }), 200).stats.bossesDefeated).toBe(1);
    expect(expectOk(await tp.api.get(`${G()}/boss/history`, { key: bo.key }), 200).map((x: any) => x.status)).toEqual(['escaped', 'defeated']);
    expectError(await tp.api.post(`${G()}/boss/spawn`, {}, { key: bo.key }), 422, 'validation_error', 'not_enough_tickets');
    expectError(await hit(bo, 'tkt_nosuchticket1'), 404, 'not_found_error', 'resource_not_found', 'ticketId');
  });

  it('every change of the game state is an event: webhooks, the audit log and the event stream carry them', async () => {
    const wanted = ['game.boss.spawned', 'game.boss.damaged', 'game.boss.defeated', 'game.boss.escaped', 'game.xp_awarded', 'game.achievement.unlocked', 'game.level_up'];
    await eventually('every kind on the webhook', () => wanted.every((t) => hooks(t).length > 0), 30_000);
    expect(hooks('game.boss.spawned')).toHaveLength(2);
    expect(hooks('game.boss.escaped')[0].data).toMatchObject({ boss: { difficulty: 'medium' } });
    expect(hooks('game.achievement.unlocked').map((h) => h.data.achievement)).toEqual(expect.arrayContaining(['first_ticket', 'ticket_10', 'boss_slayer', 'final_blow']));
    for (const action of ['game.boss.defeated', 'game.boss.escaped', 'game.achievement.unlocked']) {
      const entries = await eventually(`${action} in the audit log`, async () => {
        const list = expectOk(await tp.api.get(`/teams/${team.teamId}/audit-log`, { key: team.sk_live, query: { action } }), 200);
        return list.length ? list : null;
      });
      expect(entries[0]).toMatchObject({ action });
    }
    await eventually('the boss events on the stream', () => STREAMED.every((t) => streamed.includes(t)), 30_000);
    expect(streamed.filter((t) => t === 'game.boss.spawned')).toHaveLength(2);
    // The test partition's log knows nothing of the live partition's game.
    expect(expectOk(await tp.api.get(`/teams/${team.teamId}/audit-log`, { key: team.sk_test, query: { action: 'game.boss.defeated' } }), 200)).toEqual([]);
  });
});

describe('game: seasons', () => {
  jest.setTimeout(120_000);
  it('a new season starts levels and XP again and keeps lifetime stats; the past season keeps its final level; a streak day adds its bonus', async () => {
    const before = expectOk(await tp.api.get(`${G()}/player/${ada.id}`, { key: ada.key }), 200);
    expect(before.xp).toBeGreaterThan(0);
    const d = new Date(now);
    const nextQuarter = Date.UTC(d.getUTCFullYear(), Math.floor(d.getUTCMonth() / 3) * 3 + 3, 1, 12);
    now = nextQuarter;
    const next = expectOk(await tp.api.get(`${G()}/seasons/current`, { key: ada.key }), 200);
    expect(next.id).not.toBe(before.season.id);
    const after = expectOk(await tp.api.get(`${G()}/player/${ada.id}`, { key: ada.key }), 200);
    expect(after).toMatchObject({ season: { id: next.id }, level: 1, xp: 0, xpInCurrentLevel: 0, xpProgress: 0, gold: before.gold, stats: before.stats, totalSkillPoints: before.totalSkillPoints });

    // Her next paying close writes the rollover: the past season is listed with the level she ended it at.
    const t = (await customerTickets(1, 'low'))[0]!;
    await closeAll(ada, [t.id], before.stats.ticketsClosed);
    const seasons = expectOk(await tp.api.get(`${G()}/seasons`, { key: ada.key, query: { userId: ada.id } }), 200);
    expect(seasons.find((s: any) => s.id === before.season.id)).toMatchObject({ finalLevel: before.level, finalXp: before.xp });
    expect(expectOk(await tp.api.get(`${G()}/player/${ada.id}`, { key: ada.key }), 200)).toMatchObject({ level: 1, xp: 10 });

    // A paying close the next day too: a 2-day streak adds 5% (a normal ticket: 20 → 21 XP).
    now += 24 * 60 * MINUTE;
    const next2 = (await customerTickets(1, 'normal'))[0]!;
    await closeAll(ada, [next2.id], before.stats.ticketsClosed + 1);
    expect(await get(ada)).toMatchObject({ xp: 10 + 21, streaks: { current: 2 } });
    await eventually('game.season.rolled_over on the webhook', () => hooks('game.season.rolled_over').length > 0, 30_000);
    expect(hooks('game.season.rolled_over').map((h) => h.data)).toEqual([expect.objectContaining({ memberId: ada.id, fromSeasonId: before.season.id, toSeasonId: next.id, finalLevel: before.level })]);
  });
});
