/**
 * The game where agents see it (issue 35 item 4), in Chromium: the boss's health bar falls live when
 * another agent closes a ticket and hits it; closing a customer ticket in the console pays its closer
 * (level, XP, gold, a toast for the achievement) and hits the boss; the team's switch hides the boss,
 * boring mode the whole panel. axe-core on the game page.
 */
import type { Browser, Page } from 'playwright-core';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { expectOk } from '../platform/helpdesk-helpers';
import { addTeammate, browserDescribe, consoleBuilt, customerTicket, launchBrowser, memberOfKey, originOf, seriousViolations, signIn, until, type SignedIn } from './console-helpers';

browserDescribe('game.browser.test')('the console: the game', () => {
  let tp: TestPlatform;
  let browser: Browser;
  let origin: string;
  let me: SignedIn;
  let page: Page;
  let teammate: { id: string; key: string };

  const api = (path: string) => `/teams/${tp.team.teamId}${path}`;
  const health = async () => Number(((await page.textContent('[data-testid=boss-health]')) ?? '').split('/')[0].replace(/\D/g, ''));

  beforeAll(async () => {
    consoleBuilt();
    tp = await startTestPlatform();
    origin = originOf(tp);
    teammate = await addTeammate(tp);
    // A burst of customer tickets calls up a boss (5 in 5 minutes: the easy one).
    for (let i = 0; i < 5; i++) await customerTicket(tp, tp.team, `Burst ${i}`);
    expectOk(await tp.api.post(api('/game/boss/spawn'), {}, { key: tp.team.sk_live }), 201);
    browser = await launchBrowser();
    me = await signIn(browser, tp, tp.team);
    page = me.page;
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await tp?.stop();
  }, 60_000);
  afterEach(() => expect(me.problems).toEqual([]));

  it("the boss bar falls live when another agent closes a ticket and hits the boss", async () => {
    await page.goto(`${origin}/app/`);
    await page.waitForSelector('.stream-live');
    await page.getByRole('progressbar', { name: 'Health' }).waitFor();
    const before = await health();
    expect(before).toBe(500);
    const t = await customerTicket(tp, tp.team, 'Teammate closes', { priority: 'urgent' });
    expectOk(await tp.api.patch(api(`/tickets/${t.id}`), { status: 'closed' }, { key: teammate.key }), 200);
    // The game learns of the close from its event: until then the ticket is not closed for it (422).
    const hit = await until('the hit', async () => {
      const res = await tp.api.post(api('/game/boss/damage'), { ticketId: t.id }, { key: teammate.key });
      return res.status === 422 ? null : expectOk(res, 200);
    });
    await until('the bar to fall', async () => (await health()) === hit.currentHealth);
    expect(hit.currentHealth).toBeLessThan(before);
    expect(Number(await page.getByRole('progressbar', { name: 'Health' }).getAttribute('aria-valuenow'))).toBe(hit.currentHealth);
  }, 60_000);

  it('closing a customer ticket in the console pays the closer, hits the boss and toasts the achievement', async () => {
    const owner = await memberOfKey(tp, tp.team.sk_live);
    const t = await customerTicket(tp, tp.team, 'I close this one', { priority: 'high' });
    await page.goto(`${origin}/app/tickets/${t.id}`);
    await page.waitForSelector('#ticket-title');
    const before = await health();
    await page.getByLabel('Status').selectOption('closed');
    await page.locator('.toast', { hasText: 'Achievement unlocked: First Blood' }).waitFor();
    await until('the bar to fall', async () => (await health()) < before);
    const player = expectOk(await tp.api.get(api(`/game/player/${owner.id}`), { key: tp.team.sk_live }), 200);
    expect(player.stats.ticketsClosed).toBe(1);
    await until('the gold in the badge', async () => (await page.textContent('.player-badge'))?.includes(`${player.gold} gold`));
  }, 60_000);

  it('the game page: player, boss with its fighters, quests, leaderboard, achievements; no serious axe violation', async () => {
    await page.goto(`${origin}/app/game`);
    await page.getByRole('heading', { name: 'Game', level: 1 }).waitFor();
    await page.getByRole('table', { name: 'Fighters' }).waitFor();
    await page.getByRole('heading', { name: "Today's quests" }).waitFor();
    await page.getByRole('heading', { name: 'Achievements' }).waitFor();
    await page.locator('.achievements .unlocked', { hasText: 'First Blood' }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
  }, 60_000);

  it("respects the team's switch (no boss shown with bosses off) and the member's boring mode (no panel)", async () => {
    await page.goto(`${origin}/app/`);
    await page.getByRole('progressbar', { name: 'Health' }).waitFor();
    // The game service learns the switches from their events: wait until it answers with them, then look.
    const bossStatus = async () => (await tp.api.get(api('/game/boss'), { key: tp.team.sk_live })).status;
    expectOk(await tp.api.patch(api('/settings/feature-flags'), { bossBattlesEnabled: false }, { key: tp.team.sk_live }), 200);
    await until('bosses off', async () => (await bossStatus()) === 403);
    await page.reload();
    await page.getByRole('heading', { name: "Today's quests" }).waitFor();
    expect(await page.$('[data-testid=boss-health]')).toBeNull();
    expect(await page.$('.game-rail .boss')).toBeNull();
    expectOk(await tp.api.patch(api('/settings/feature-flags'), { bossBattlesEnabled: true }, { key: tp.team.sk_live }), 200);
    await until('bosses on', async () => (await bossStatus()) === 200);
    await page.reload();
    await page.getByRole('progressbar', { name: 'Health' }).waitFor();
    const owner = await memberOfKey(tp, tp.team.sk_live);
    expectOk(await tp.api.patch(api(`/members/${owner.id}/preferences`), { boringMode: true }, { key: tp.team.sk_live }), 200);
    await until('boring mode', async () => expectOk(await tp.api.get(api(`/game/player/${owner.id}`), { key: tp.team.sk_live }), 200).boringMode === true);
    await page.reload();
    await page.waitForSelector('h1#inbox-title');
    await until('the panel to be gone', async () => (await page.$('.game-rail')) === null && (await page.$('.player-badge')) === null);
  }, 60_000);
});
