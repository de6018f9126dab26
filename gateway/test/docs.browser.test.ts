/**
 * The HTML API reference at /docs, rendered by a real browser (Debian's Chromium driven by
 * playwright-core; `scripts/ensure-infra.sh` installs it). Skipped, saying so, where Chromium is not
 * installed: `npm test` on a laptop without it.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { PUBLIC_OPERATIONS } from '@helpdesk/contracts';
import { startHarness, type Harness } from './helpers';

const CHROMIUM = '/usr/bin/chromium';
const maybe = existsSync(CHROMIUM) ? describe : describe.skip;
if (!existsSync(CHROMIUM)) console.warn(`docs.browser.test: ${CHROMIUM} not found; skipped (apt-get install chromium)`);

maybe('/docs in headless Chromium', () => {
  let h: Harness;
  let browser: Browser;
  beforeAll(async () => {
    h = await startHarness();
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
    });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await h?.stop();
  });

  // Swagger UI 5.33–5.35 drew only the first operations of this document, silently (gateway/src/docs.ts).
  it('renders every operation of the document, fetching nothing from outside', async () => {
    const page = await browser.newPage();
    const outside: string[] = [];
    page.on('request', (r) => {
      if (!r.url().startsWith(h.base.replace('/api/v1', ''))) outside.push(r.url());
    });
    await page.goto(`${h.base.replace('/api/v1', '')}/docs/`);
    await page.waitForSelector('.opblock', { timeout: 30_000 });
    // Drawn in one pass after the document loads; a moment more shows whether anything is still coming.
    await page.waitForFunction(`document.querySelectorAll('.opblock').length >= ${Object.keys(PUBLIC_OPERATIONS).length}`, undefined, { timeout: 10_000 }).catch(() => undefined);
    const ids = await page.$$eval('.opblock .opblock-summary-path', (els) => els.map((e) => e.getAttribute('data-path')));
    expect(ids.length).toBe(Object.keys(PUBLIC_OPERATIONS).length);
    expect(await page.textContent('.info .title')).toContain('Helpdesk API');
    expect(outside).toEqual([]);
    await page.close();
  }, 60_000);
});

maybe('/docs "Try it out" under another host name', () => {
  let h: Harness;
  let browser: Browser;
  beforeAll(async () => {
    h = await startHarness();
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
    });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await h?.stop();
  });

  // The document's `servers` entry is relative (`/api/v1`): from http://localhost:…/docs the request goes to
  // localhost too (same origin), not to a hard-coded 127.0.0.1 the browser would refuse as cross-origin.
  it('from http://localhost:<port>/docs, whoami answers 200 through the page', async () => {
    const doc = (await (await fetch(`${h.base}/openapi.json`)).json()) as { servers: { url: string }[] };
    expect(doc.servers.map((s) => s.url)).toEqual(['/api/v1']);
    const origin = `http://localhost:${h.gw.port}`;
    const page = await browser.newPage();
    const calls: string[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/auth/whoami')) calls.push(r.url());
    });
    await page.goto(`${origin}/docs/`);
    await page.waitForSelector('.opblock', { timeout: 30_000 });
    expect(await page.$eval('.servers select', (s) => (s as unknown as { value: string }).value)).toBe('/api/v1');
    await page.evaluate(`window.ui.preauthorizeApiKey('apiKey', ${JSON.stringify(h.keys.sk_test)})`);
    const block = page.locator('.opblock', { has: page.locator('[data-path="/auth/whoami"]') });
    await block.locator('.opblock-summary').click();
    await block.locator('button.try-out__btn').click();
    await block.locator('button.execute').click();
    await block.locator('.live-responses-table tbody .response-col_status').first().waitFor({ timeout: 10_000 });
    expect((await block.locator('.live-responses-table tbody .response-col_status').first().textContent())?.trim()).toBe('200');
    expect(calls).toEqual([`${origin}/api/v1/auth/whoami`]);
    await page.close();
  }, 60_000);
});
