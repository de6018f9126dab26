/**
 * The pages people open in a browser, checked by axe-core in headless Chromium (issue 34 item 10): the
 * help center's home and an article, the billing portal page, the error reference and the API
 * reference at /docs (Swagger UI with the gateway's fixes, gateway/src/docs.ts) have no serious or
 * critical violation; the help center and the billing page
 * share the gateway's stylesheet (gateway/src/page-style.ts), tables drawn with borders. Skipped,
 * saying so, where Chromium is not installed.
 */
import { existsSync, readFileSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { expectOk } from './helpdesk-helpers';
import { createArticle, createCategory, originOf, teamSlugOf } from './knowledge-helpers';

const CHROMIUM = '/usr/bin/chromium';
const maybe = existsSync(CHROMIUM) ? describe : describe.skip;
if (!existsSync(CHROMIUM)) console.warn(`pages-a11y.browser.test: ${CHROMIUM} not found; skipped (apt-get install chromium)`);
const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[] }[];
}

maybe('pages in headless Chromium, checked by axe-core', () => {
  let tp: TestPlatform;
  let browser: Browser;
  let origin: string;
  let home: string;
  let article: string;
  let billing: string;

  beforeAll(async () => {
    tp = await startTestPlatform();
    origin = originOf(tp);
    const cat = await createCategory(tp, { name: 'Account', isPublic: true, icon: 'user' });
    const a = await createArticle(tp, {
      title: 'Plans and limits',
      content: ['Each plan, per member and month.', '', '| plan | price |', '|---|---|', '| Free | 0 USD |', '| Team | 15 USD |', '', 'See **Settings** for more.'].join('\n'),
      categoryId: cat.id,
      status: 'published',
      isPublic: true,
    });
    expectOk(await tp.api.patch(`${tp.teamPath}/help-center`, { enabled: true, title: 'Acme Help' }), 200);
    const slug = await teamSlugOf(tp);
    home = `${origin}/help/${slug}?mode=test`;
    article = `${origin}/help/${slug}/articles/${a.id}?mode=test`;
    const portal = expectOk(await tp.api.post(`${tp.teamPath}/billing/portal`, { returnUrl: 'https://app.example.com/settings' }), 200);
    billing = `${origin}${new URL(portal.url).pathname}`;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
    });
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await tp?.stop();
  }, 60_000);

  /** The serious and critical violations axe finds on the page at `url` (the pages' CSP bypassed only to inject axe). */
  async function serious(url: string, ready?: string): Promise<{ violations: string[]; page: import('playwright-core').Page }> {
    const context = await browser.newContext({ bypassCSP: true });
    const page = await context.newPage();
    const res = await page.goto(url);
    expect(res!.status()).toBe(200);
    if (ready) await page.waitForSelector(ready, { timeout: 60_000 });
    await page.addScriptTag({ content: AXE });
    const violations = (await page.evaluate(`axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations)`)) as Violation[];
    const found = violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.map((n) => JSON.stringify(n.target)).join(', ')})`);
    return { violations: found, page };
  }

  it('the help center home: no serious violation, the shared stylesheet', async () => {
    const { violations, page } = await serious(home);
    expect(violations).toEqual([]);
    expect(await page.evaluate(`getComputedStyle(document.documentElement).getPropertyValue('--line').trim()`)).not.toBe('');
    await page.context().close();
  }, 60_000);

  it('an article: no serious violation; its table has borders', async () => {
    const { violations, page } = await serious(article);
    expect(violations).toEqual([]);
    expect(await page.evaluate(`getComputedStyle(document.querySelector('article td')).borderTopWidth`)).toBe('1px');
    await page.context().close();
  }, 60_000);

  it('the billing portal page: doctype, viewport, the shared stylesheet, no serious violation', async () => {
    const { violations, page } = await serious(billing);
    expect(violations).toEqual([]);
    expect(await page.evaluate(`document.compatMode`)).toBe('CSS1Compat');
    expect(await page.$eval('meta[name=viewport]', (m) => m.getAttribute('content'))).toBe('width=device-width, initial-scale=1');
    expect(await page.evaluate(`getComputedStyle(document.documentElement).getPropertyValue('--line').trim()`)).not.toBe('');
    await page.context().close();
  }, 60_000);

  it('the error reference: no serious violation', async () => {
    const { violations, page } = await serious(`${origin}/docs/errors`);
    expect(violations).toEqual([]);
    await page.context().close();
  }, 60_000);

  it('the API reference at /docs: no serious violation', async () => {
    const { violations, page } = await serious(`${origin}/docs/`, '#servers[aria-label]');
    expect(violations).toEqual([]);
    await page.context().close();
  }, 120_000);
});
