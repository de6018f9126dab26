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
