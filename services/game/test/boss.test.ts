import { closeCustomerTickets, created, customerTicket, envelope, expectError, joinMember, MINUTE, startHarness, TEAM_A, type Harness } from './helpers';
import { ALL_ON } from '../src/members/model';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h?.stop());

const live = { teamId: TEAM_A, mode: 'live' as const };
const asLive = { as: { mode: 'live' as const } };
const post = (path: string, body: unknown = {}, memberId: string | null = null) => h.api('POST', `/teams/{team}/game/boss${path}`, { as: { mode: 'live', memberId }, body });
const state = async () => (await h.api('GET', '/teams/{team}/game/boss', asLive)).body.data;

/** Customer tickets created now (they count toward a spawn). */
async function newTickets(n: number) {
  await h.publish(...Array.from({ length: n }, () => envelope('ticket.created', { ticket: customerTicket(h) }, live)));
}
/** `n` customer tickets closed by the member (ready to hit). */
async function closedTickets(memberId: string, n: number, priority: 'low' | 'normal' | 'high' | 'urgent' = 'normal') {
  return closeCustomerTickets(h, memberId, live, n, { priority });
}
/** Moves the clock past the spawn window, so the next spawn counts new tickets only; and ends any boss by its escape. */
async function afterBattle() {
  h.clock.advance(25 * 60 * MINUTE);
  await state();
}

describe('boss battles', () => {
  it('spawn needs 5 customer tickets in the last 5 minutes; a second spawn while it is up is 409', async () => {
    await newTickets(4);
    await created(h, customerTicket(h, { openedBy: 'member' }), live); // a member's ticket does not count
    expectError(await post('/spawn'), 422, 'not_enough_tickets', undefined);
    await newTickets(1);
    const spawned = await post('/spawn');
    expect(spawned.status).toBe(201);
    expect(spawned.body.data).toMatchObject({
      object: 'boss_state', active: true,
      boss: { name: 'Backlog Goblin', difficulty: 'easy', level: 1, maxHealth: 500, currentHealth: 500, healthPercent: 1, phase: 1, status: 'active', participants: [], totalDamage: 0, battleDuration: 0,
        abilities: { shield: { active: false, hitsRemaining: 0 }, enrage: { active: false }, heal: { totalHealed: 0, perMinute: 5 } }, rewards: { xpMultiplier: 1, goldMultiplier: 1 } },
    });
    expect((await h.eventsOf(spawned.requestId)).map((e) => [e.type, e.data.ticketCount])).toEqual([['game.boss.spawned', 5]]);
    expectError(await post('/spawn'), 409, 'boss_already_active', undefined);
    expect((await h.api('GET', '/teams/{team}/game/boss/active', asLive)).body.data).toEqual({ object: 'boss_active', active: true });
  });

  it('damage: only a closed customer ticket of this partition, once; the service computes it', async () => {
    const ada = await joinMember(h, TEAM_A, 'Ada');
    const [t] = await closedTickets(ada.id, 1, 'high');
    const open = customerTicket(h);
    await created(h, open, live);
    const mine = customerTicket(h, { openedBy: 'member', status: 'closed' });
    await created(h, mine, live);
    expectError(await post('/damage', { ticketId: open.id }, ada.id), 422, 'ticket_not_eligible', 'ticketId');
    expectError(await post('/damage', { ticketId: mine.id }, ada.id), 422, 'ticket_not_eligible', 'ticketId');
    expectError(await post('/damage', { ticketId: 'tkt_unknown0001' }, ada.id), 404, 'resource_not_found', 'ticketId');
    expectError(await h.api('POST', '/teams/{team}/game/boss/damage', { as: { mode: 'test', memberId: ada.id }, body: { ticketId: t!.id } }), 404, 'resource_not_found', 'ticketId');
    expectError(await post('/damage', { ticketId: t!.id, damage: 9999 }, ada.id), 400, 'parameter_invalid', 'damage');
    expectError(await post('/damage', {}, ada.id), 400, 'parameter_missing', 'ticketId');
    expectError(await post('/damage', { ticketId: t!.id }, null), 400, 'parameter_missing', 'userId');
    const hit = await post('/damage', { ticketId: t!.id, userName: 'Ada L.' }, ada.id);
    expect(hit.status).toBe(200);
    expect(hit.body.data).toEqual({
      object: 'boss_damage', bossId: expect.stringMatching(/^boss_/), ticketId: t!.id, memberId: ada.id, damage: 35, currentHealth: 465, healthPercent: 0.93, previousHealthPercent: 1,
      isDefeated: false, isKillingBlow: false, shieldBlocked: false, shieldBroken: false, enrageTriggered: false, activeAbilities: ['heal'],
    });
    expectError(await post('/damage', { ticketId: t!.id }, ada.id), 409, 'boss_hit_already_dealt', 'ticketId');
    expect((await state()).boss.participants).toEqual([{ memberId: ada.id, name: 'Ada L.', damage: 35, hits: 1, lastHitAt: expect.any(String) }]);
  });

  it('it regenerates 1% of its health per minute without hits', async () => {
    h.clock.advance(3 * MINUTE + 10_000);
    expect((await state()).boss).toMatchObject({ currentHealth: 480, abilities: { heal: { totalHealed: 15 } } });
  });

  jest.setTimeout(120_000);
  it('50 concurrent hits: health is exactly max minus their damage, one killing blow; rewards by share', async () => {
    const bo = await joinMember(h, TEAM_A, 'Bo');
    const cy = await joinMember(h, TEAM_A, 'Cy');
    const tickets = [...(await closedTickets(bo.id, 25)), ...(await closedTickets(cy.id, 25))];
    const before = (await state()).boss.currentHealth;
    const answers = await Promise.all(tickets.map((t, i) => post('/damage', { ticketId: t.id }, i < 25 ? bo.id : cy.id)));
    const hits = answers.filter((a) => a.status === 200).map((a) => a.body.data);
    expect(answers.filter((a) => a.status !== 200).every((a) => a.status === 409 && a.body.error.code === 'boss_not_active')).toBe(true);
    expect(hits.reduce((s, d) => s + d.damage, 0)).toBe(before);
    expect(hits.filter((d) => d.isKillingBlow)).toHaveLength(1);
    expect(hits.some((d) => d.enrageTriggered)).toBe(true);
    const s = await state();
    expect(s).toMatchObject({ active: false, boss: { status: 'defeated', currentHealth: 0, healthPercent: 0 } });
    expect(s.boss.participants.reduce((sum: number, p: any) => sum + p.damage, 0)).toBe(s.boss.totalDamage);
    const defeated = h.events.find((e) => e.type === 'game.boss.defeated')!;
    const killer = hits.find((d) => d.isKillingBlow).memberId;
    expect(defeated.data.killedBy).toBe(killer);
    expect(defeated.data.rewards.filter((r: any) => r.finalBlow).map((r: any) => r.memberId)).toEqual([killer]);
    const p = (await h.api('GET', `/teams/{team}/game/player/${killer}`, asLive)).body.data;
    expect(p.stats).toMatchObject({ bossesDefeated: 1, finalBlows: 1 });
  });

  it('the same ticket sent twice at once: one hit, one 409', async () => {
    await newTickets(5);
    expect((await post('/spawn')).status).toBe(201);
    const di = await joinMember(h, TEAM_A, 'Di');
    const [t] = await closedTickets(di.id, 1);
    const [a, b] = await Promise.all([post('/damage', { ticketId: t!.id }, di.id), post('/damage', { ticketId: t!.id }, di.id)]);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    const boss = (await state()).boss;
    expect(boss.participants.find((p: any) => p.memberId === di.id)).toMatchObject({ hits: 1 });
    expect(boss.totalDamage).toBe([a, b].find((r) => r.status === 200)!.body.data.damage);
  });

  it('a boss left for 24 hours escapes without rewards', async () => {
    h.clock.advance(24 * 60 * MINUTE);
    expect(await state()).toMatchObject({ active: false, boss: { status: 'escaped' } });
    expect(h.events.filter((e) => e.type === 'game.boss.escaped')).toHaveLength(1);
    expect(h.events.filter((e) => e.type === 'game.boss.defeated')).toHaveLength(1);
  });

  it('a medium boss: its shield blocks hits until broken and rises again in phase 2', async () => {
    await afterBattle();
    await newTickets(10);
    const spawned = (await post('/spawn')).body.data.boss;
    expect(spawned).toMatchObject({ difficulty: 'medium', maxHealth: 1500, abilities: { shield: { active: true, hitsRemaining: 2 } } });
    const ed = await joinMember(h, TEAM_A, 'Ed');
    const ts = await closedTickets(ed.id, 3);
    const first = (await post('/damage', { ticketId: ts[0]!.id }, ed.id)).body.data;
    expect(first).toMatchObject({ damage: 0, shieldBlocked: true, shieldBroken: false, activeAbilities: ['shield', 'heal'] });
    const second = (await post('/damage', { ticketId: ts[1]!.id }, ed.id)).body.data;
    expect(second).toMatchObject({ damage: 0, shieldBlocked: true, shieldBroken: true, activeAbilities: ['heal'] });
    expect((await post('/damage', { ticketId: ts[2]!.id }, ed.id)).body.data).toMatchObject({ damage: 20, shieldBlocked: false, currentHealth: 1480 });
  });

  it('bossBattlesEnabled false: every boss operation is 403 feature_disabled', async () => {
    await h.publish(envelope('feature_flags.updated', { featureFlags: { ...ALL_ON, bossBattlesEnabled: false }, changes: ['bossBattlesEnabled'], previous: { bossBattlesEnabled: true } }, live));
    for (const [method, path] of [['GET', ''], ['GET', '/active'], ['POST', '/spawn'], ['POST', '/damage'], ['GET', '/history']] as const) {
      expectError(await h.api(method, `/teams/{team}/game/boss${path}`, { as: { mode: 'live' }, body: path === '/damage' ? { ticketId: 'tkt_anyticket01' } : method === 'POST' ? {} : undefined }), 403, 'feature_disabled', undefined);
    }
    await h.publish(envelope('feature_flags.updated', { featureFlags: ALL_ON, changes: ['bossBattlesEnabled'], previous: { bossBattlesEnabled: false } }, live));
    const history = await h.api('GET', '/teams/{team}/game/boss/history', asLive);
    expect(history.body.data.map((b: any) => b.status)).toEqual(['escaped', 'defeated']);
  });
});
