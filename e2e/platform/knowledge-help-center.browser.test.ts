/**
 * The public help center (`/help/{teamSlug}`) in a real browser: Debian's Chromium driven by
 * playwright-core. Skipped, saying so, where Chromium is not installed (`scripts/ensure-infra.sh`
 * installs it).
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { expectOk } from './helpdesk-helpers';
import { createArticle, createCategory, originOf, teamSlugOf } from './knowledge-helpers';

const CHROMIUM = '/usr/bin/chromium';
const maybe = existsSync(CHROMIUM) ? describe : describe.skip;
if (!existsSync(CHROMIUM)) console.warn(`knowledge-help-center.browser.test: ${CHROMIUM} not found; skipped (apt-get install chromium)`);

maybe('the help center in headless Chromium', () => {
  let tp: TestPlatform;
  let browser: Browser;
  let home: string;
  const kb: Record<string, any> = {};

  beforeAll(async () => {
    tp = await startTestPlatform();
    const cat = await createCategory(tp, { name: 'Account', isPublic: true, icon: 'user' });
    kb.visible = await createArticle(tp, { title: 'Reset your password', content: 'Open **Settings** and choose *Forgot password*.', categoryId: cat.id, status: 'published', isPublic: true });
    kb.draft = await createArticle(tp, { title: 'Secret roadmap', content: 'zebracorn launch plans', categoryId: cat.id, status: 'draft', isPublic: true });
    kb.evil = await createArticle(tp, {
      title: 'Harmless looking',
      content: [
        'Before <script>window.__pwned = "inline"; document.title = "pwned";</script> after.',
        '',
        '[Click for help](javascript:window.__pwned="markdown-link";document.title="pwned")',
        '',
        '<a id="raw" href="javascript:window.__pwned=\'raw-link\'">Raw link</a>',
        '<img src="https://127.0.0.1:1/x.png" onerror="window.__pwned=\'onerror\'">',
      ].join('\n'),
      status: 'published',
      isPublic: true,
    });
    expectOk(await tp.api.patch(`${tp.teamPath}/help-center`, { enabled: true, title: 'Acme Help' }), 200);
    home = `${originOf(tp)}/help/${await teamSlugOf(tp)}?mode=test`;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
    });
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await tp?.stop();
  }, 60_000);

  async function search(page: Page, text: string): Promise<void> {
    await page.goto(home);
    await page.fill('input[type=search][name=q]', text);
    await Promise.all([page.waitForURL(/[?&]q=/), page.press('input[type=search][name=q]', 'Enter')]);
  }

  it('finds a published public article through the search box and shows it rendered', async () => {
    const page = await browser.newPage();
    await search(page, 'password');
    expect(await page.textContent('h1')).toContain('password');
    await Promise.all([page.waitForURL(/\/articles\/art_/), page.click('text=Reset your password')]);
    expect(await page.textContent('article h1')).toBe('Reset your password');
    expect(await page.textContent('article strong')).toBe('Settings');
    expect(await page.textContent('article em')).toBe('Forgot password');
    expect(await page.title()).toBe('Reset your password · Acme Help');
    // the search form keeps the partition, and the home link leads back
    await Promise.all([page.waitForURL(/\/help\/[^/]+\?mode=test$/), page.click('header a')]);
    expect(await page.textContent('main')).toContain('Reset your password');
    await page.close();
  }, 60_000);

  it('does not find or show a draft', async () => {
    const page = await browser.newPage();
    await search(page, 'zebracorn');
    expect(await page.textContent('#results')).toContain('No articles found.');
    expect(await page.textContent('body')).not.toContain('Secret roadmap');
    const res = await page.goto(`${home.replace('?mode=test', '')}/articles/${kb.draft.id}?mode=test`);
    expect(res!.status()).toBe(404);
    expect(await page.textContent('h1')).toBe('Not found');
    expect(await page.textContent('body')).not.toContain('zebracorn');
    await page.close();
  }, 60_000);

  it('renders an article\'s <script>, javascript: links and event handlers inert', async () => {
    const page = await browser.newPage();
    const res = await page.goto(`${home.replace('?mode=test', '')}/articles/${kb.evil.id}?mode=test`);
    expect(res!.status()).toBe(200);
    await page.waitForLoadState('load');
    const pwned = () => page.evaluate(() => (globalThis as unknown as { __pwned?: string }).__pwned ?? null);
    expect(await pwned()).toBeNull();
    expect(await page.title()).toBe('Harmless looking · Acme Help');
    expect(await page.$$eval('script', (els) => els.length)).toBe(0);
    expect(await page.$$eval('[onerror], [onclick], [onload]', (els) => els.length)).toBe(0);
    expect(await page.$$eval('a', (els) => els.map((a) => a.getAttribute('href') ?? '').filter((h) => /^\s*javascript:/i.test(h)))).toEqual([]);
    // clicking what is left of the links runs nothing either
    await page.click('text=Click for help');
    await page.click('text=Raw link');
    expect(await pwned()).toBeNull();
    expect(await page.title()).toBe('Harmless looking · Acme Help');
    expect(await page.textContent('article')).toContain('Before');
    await page.close();
  }, 60_000);
});
