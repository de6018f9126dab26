/**
 * The chat widget as a visitor uses it (docs/adr/0040), in Debian's Chromium driven by playwright-core:
 * a shop's page on one origin embeds the widget from the platform (another origin) with the README's
 * one tag; the visitor writes with the keyboard only; the ticket appears through the API; an agent's
 * reply appears in the panel (an internal note never does); a reload keeps the conversation; axe-core
 * finds no serious or critical violation. Skipped, saying so, where Chromium is not installed.
 * `WIDGET_SCREENSHOT=docs/images/widget.png` saves the screenshot of the widget in the page.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startTestPlatform, type TeamKeys, type TestPlatform } from '../support/platform';
import { eventually, expectOk } from './helpdesk-helpers';

const CHROMIUM = '/usr/bin/chromium';
const maybe = existsSync(CHROMIUM) ? describe : describe.skip;
if (!existsSync(CHROMIUM)) console.warn(`widget.browser.test: ${CHROMIUM} not found; skipped (apt-get install chromium)`);

/** The shop's page: its own hostile CSS (the widget lives in a shadow root) and the one tag. */
const shopPage = (platformOrigin: string, teamId: string, key: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Acme Shop</title>
<style>
  * { color: #ff00ff !important; font-size: 31px !important; }
  button, input, textarea { display: none !important; }
  body { margin: 0; background: #fafafa; font-family: Georgia, serif; }
  main { padding: 40px; }
</style></head>
<body><main><h1>Acme Shop</h1><p>Our finest products, delivered.</p><a href="#top">Back to top</a></main>
<script src="${platformOrigin}/widget/v1.js" data-team-id="${teamId}" data-key="${key}" async></script>
</body></html>`;

maybe('the chat widget in headless Chromium', () => {
  let tp: TestPlatform;
  let team: TeamKeys;
  let browser: Browser;
  let shop: http.Server;
  let shopUrl: string;
  const codes = new Map<string, string>();

  beforeAll(async () => {
    tp = await startTestPlatform();
    team = await tp.createTeam('Acme Shop');
    await tp.observe('customers', ['customer.confirmation_requested'], async (e: any) => {
      codes.set(e.data.customer.email, e.data.code);
    });
    const platformOrigin = new URL(tp.baseUrl).origin;
    shop = http.createServer((req, res) => {
      res.setHeader('content-type', 'text/html; charset=utf-8');
      res.end(shopPage(platformOrigin, team.teamId, team.pk_test));
    });
    await new Promise<void>((resolve) => shop.listen(0, '127.0.0.1', resolve));
    // `localhost` vs the platform's 127.0.0.1: two origins, as a shop and the platform are.
    shopUrl = `http://localhost:${(shop.address() as AddressInfo).port}`;
    expectOk(
      await tp.api.patch(`/teams/${team.teamId}/settings/widget`, { position: 'bottom-left', primaryColor: '#0a7d33', greeting: 'Hello from Acme! Ask us anything.', allowedOrigins: [shopUrl] }, { key: team.sk_test }),
      200,
    );
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
    });
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => shop?.close(resolve));
    await tp?.stop();
  }, 60_000);

  const widgetTickets = async () => {
    const list = expectOk(await tp.api.get(`/teams/${team.teamId}/tickets`, { key: team.sk_test }), 200) as any[];
    return list.filter((t) => t.channel === 'widget');
  };
  const panelLog = (page: Page) => page.getByRole('log', { name: 'Conversation' });

  it('a visitor writes with the keyboard, an agent answers, a reload keeps the conversation; axe finds nothing serious', async () => {
    const context = await browser.newContext({ viewport: { width: 1000, height: 760 } });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(shopUrl);

    // The launcher, drawn by the settings: colour and corner, untouched by the page's CSS.
    const launcher = page.getByRole('button', { name: 'Open chat' });
    await launcher.waitFor();
    // (Functions run in the page: its globals, which this file's Node typings do not know.)
    await page.waitForFunction(() => {
      const w = globalThis as any;
      const b = w.document.querySelector('#helpdesk-widget')?.shadowRoot?.querySelector('.launcher');
      return !!b && w.getComputedStyle(b).backgroundColor === 'rgb(10, 125, 51)';
    });
    const look = await launcher.evaluate((b) => {
      const style = (globalThis as any).getComputedStyle(b);
      return { display: style.display, fontSize: style.fontSize, color: style.color };
    });
    expect(look).toEqual({ display: 'block', fontSize: '16px', color: 'rgb(255, 255, 255)' });
    const box = (await launcher.boundingBox())!;
    expect(box.x).toBeLessThan(100); // bottom-left
    expect(box.y).toBeGreaterThan(600);

    // Keyboard only: focus the launcher, Enter opens the panel with the name field focused.
    await launcher.focus();
    await page.keyboard.press('Enter');
    await page.getByRole('dialog', { name: 'Chat with us' }).waitFor();
    await page.getByText('Hello from Acme! Ask us anything.').waitFor();
    expect(await page.getByLabel('Your name').evaluate((el) => el === (el.getRootNode() as any).activeElement)).toBe(true);
    await page.keyboard.type('Wanda Widget');
    await page.keyboard.press('Tab');
    await page.keyboard.type('wanda@example.com');
    await page.keyboard.press('Tab');
    await page.keyboard.type('Where is my parcel?');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await panelLog(page).getByText('Where is my parcel?').waitFor();
    await page.getByLabel('Your name').waitFor({ state: 'hidden' });

    // Through the API: a widget ticket with the first customer message, the customer pending.
    const [ticket] = await widgetTickets();
    expect(ticket).toMatchObject({ title: 'Where is my parcel?', channel: 'widget', messageCount: 1 });
    const customer = expectOk(await tp.api.get(`/teams/${team.teamId}/customers/${ticket.customerId}`, { key: team.sk_test }), 200);
    expect(customer).toMatchObject({ email: 'wanda@example.com', status: 'pending' });

    // The code mailed to the new customer, typed into the panel: their email is confirmed, they are active.
    const code = await eventually('the confirmation code', () => codes.get('wanda@example.com'));
    await page.getByText('We emailed a confirmation code to wanda@example.com').waitFor();
    await page.getByLabel('Confirmation code').fill(code);
    await page.getByRole('button', { name: 'Confirm email' }).click();
    await page.getByText('Thank you, your email is confirmed.').waitFor();
    expect(expectOk(await tp.api.get(`/teams/${team.teamId}/customers/${ticket.customerId}`, { key: team.sk_test }), 200).status).toBe('active');

    // An internal note, then a public reply: the reply appears (live), the note never does.
    const messages = `/teams/${team.teamId}/tickets/${ticket.id}/messages`;
    expectOk(await tp.api.post(messages, { content: 'INTERNAL: customer seems upset', messageType: 'internal' }, { key: team.sk_test }), 201);
    expectOk(await tp.api.post(messages, { content: 'It left our warehouse this morning.', senderName: 'Alex from Acme' }, { key: team.sk_test }), 201);
    await panelLog(page).getByText('It left our warehouse this morning.').waitFor();
    await panelLog(page).getByText('Alex from Acme').waitFor();
    expect(await page.getByText('INTERNAL: customer seems upset').count()).toBe(0);

    // axe-core in the page, the panel open: nothing serious or critical.
    await page.addScriptTag({ content: readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8') });
    const violations = await page.evaluate(async () => {
      const w = globalThis as any;
      const result = await w.axe.run(w.document, { resultTypes: ['violations'] });
      return (result.violations as any[]).map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length }));
    });
    // The shop's own page is not ours: only violations inside the widget count.
    const ours = await page.evaluate(async () => {
      const result = await (globalThis as any).axe.run({ include: [['#helpdesk-widget']] }, { resultTypes: ['violations'] });
      return (result.violations as any[]).map((v) => ({ id: v.id, impact: v.impact, targets: v.nodes.map((n: any) => n.target) }));
    });
    expect(ours.filter((v) => v.impact === 'serious' || v.impact === 'critical')).toEqual([]);
    expect(violations.filter((v) => v.impact === 'critical')).toEqual([]);

    const shot = await page.screenshot();
    expect(shot.length).toBeGreaterThan(10_000);
    if (process.env.WIDGET_SCREENSHOT) writeFileSync(process.env.WIDGET_SCREENSHOT, shot);

    // Escape closes the panel and gives the focus back to the launcher.
    await page.keyboard.press('Escape');
    await page.getByRole('dialog', { name: 'Chat with us' }).waitFor({ state: 'hidden' });

    // A reload keeps the conversation: history shown, no sign-up again; a new message continues the ticket.
    await page.reload();
    await page.getByRole('button', { name: 'Open chat' }).click();
    await panelLog(page).getByText('It left our warehouse this morning.').waitFor();
    await panelLog(page).getByText('Where is my parcel?').waitFor();
    expect(await page.getByLabel('Your name').isVisible()).toBe(false);
    await page.getByLabel('Message').fill('Thank you!');
    await page.getByRole('button', { name: 'Send' }).click();
    await panelLog(page).getByText('Thank you!').waitFor();
    const after = await widgetTickets();
    expect(after).toHaveLength(1);
    expect(after[0]).toMatchObject({ id: ticket.id, messageCount: 4 });
    // And the stream still delivers after the reload.
    expectOk(await tp.api.post(messages, { content: 'You are welcome.' }, { key: team.sk_test }), 201);
    await panelLog(page).getByText('You are welcome.').waitFor();
    expect(errors).toEqual([]);
    await context.close();
  }, 90_000);

  it('a page of another origin gets no widget conversation, is told why (origin_not_allowed, readable), and nothing is written', async () => {
    const other = http.createServer((req, res) => {
      res.setHeader('content-type', 'text/html; charset=utf-8');
      res.end(shopPage(new URL(tp.baseUrl).origin, team.teamId, team.pk_test));
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    const page = await browser.newPage();
    try {
      const before = (await widgetTickets()).length;
      await page.goto(`http://localhost:${(other.address() as AddressInfo).port}`);
      await page.getByRole('button', { name: 'Open chat' }).click();
      await page.getByLabel('Your name').fill('Mallory');
      await page.getByLabel('Your email').fill('mallory@example.com');
      await page.getByLabel('Message').fill('hello from elsewhere');
      await page.getByRole('button', { name: 'Send' }).click();
      await page.getByRole('alert').filter({ hasText: /\S/ }).waitFor();
      // The 403's own message (readable: CORS headers on it), not "cannot be reached".
      expect(await page.getByRole('alert').textContent()).toMatch(/may not be used from http:\/\/localhost:\d+.*allowedOrigins/);
      expect((await widgetTickets()).length).toBe(before);
    } finally {
      await page.close();
      await new Promise((resolve) => other.close(resolve));
    }
  }, 60_000);
});
