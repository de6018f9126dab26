/**
 * The console's session cookie in headless Chromium (docs/adr/0068), without the console's pages: a
 * same-origin page signs in with a link's token and then uses the API with the browser's own cookie
 * handling; the cookie is out of reach of scripts; a page of another site cannot use it (SameSite,
 * Origin) nor read anything; a session revoked mid-use is refused on the page's next request. The
 * console's own browser tests drive the same through its UI. Skipped, saying so, where Chromium is not
 * installed.
 */
import { existsSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type Page } from 'playwright-core';
import { closeServer } from '@helpdesk/kit';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { operatorSignInLink, originOf } from '../support/sessions';
import { expectOk } from './helpdesk-helpers';

const CHROMIUM = '/usr/bin/chromium';
const maybe = existsSync(CHROMIUM) ? describe : describe.skip;
if (!existsSync(CHROMIUM)) console.warn(`console-session-cookie.browser.test: ${CHROMIUM} not found; skipped (apt-get install chromium)`);

/** What a page's `fetch` answered: the status and JSON body, or the error the browser raised. */
type Answer = { status: number; body: any } | { error: string };

/** Runs `fetch` in the page (its origin, its cookies) and answers what it got. */
function pageFetch(page: Page, url: string, init: { method?: string; headers?: Record<string, string>; body?: string; credentials?: 'include' | 'same-origin' } = {}): Promise<Answer> {
  return page.evaluate(async ([u, i]) => {
    try {
      const res = await fetch(u, i as RequestInit);
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : null };
    } catch (err) {
      return { error: String(err) };
    }
  }, [url, init] as const);
}

maybe('the session cookie in Chromium', () => {
  let tp: TestPlatform;
  let browser: Browser;
  let origin: string;
  /** A page of another site (`localhost` is not the site `127.0.0.1`) on a port of its own. */
  let evil: http.Server;
  let evilOrigin: string;
  const tickets = () => `${origin}/api/v1/teams/${tp.team.teamId}/tickets`;
  const ticketCount = async () => expectOk(await tp.api.get(`${tp.teamPath}/tickets`), 200).length;

  beforeAll(async () => {
    tp = await startTestPlatform();
    origin = originOf(tp);
    evil = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<!doctype html><title>another site</title>');
    });
    await new Promise<void>((r) => evil.listen(0, '127.0.0.1', r));
    evilOrigin = `http://localhost:${(evil.address() as AddressInfo).port}`;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
    });
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    if (evil) await closeServer(evil);
    await tp?.stop();
  }, 60_000);

  /** A browser context signed in as the team's owner from a same-origin page; the page and the session. */
  async function signedIn() {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${origin}/healthz`);
    const { token } = await operatorSignInLink(tp, tp.team.teamId);
    const answer = await pageFetch(page, `${origin}/api/v1/auth/sessions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token, mode: 'test' }) });
    if (!('status' in answer) || answer.status !== 201) throw new Error(`sign-in in the page failed: ${JSON.stringify(answer)}`);
    return { context, page, session: answer.body.data };
  }

  it('a same-origin page signs in, reads and writes with the cookie and its CSRF token; no script sees the cookie', async () => {
    const { context, page, session } = await signedIn();
    expect(await page.evaluate('document.cookie')).toBe('');
    const [cookie] = await context.cookies(`${origin}/api/v1/auth/session`);
    expect(await context.cookies(`${origin}/app/`)).toEqual([]);
    expect(cookie).toMatchObject({ name: 'helpdesk_session', httpOnly: true, sameSite: 'Strict', path: '/api/v1', secure: false });
    const me = await pageFetch(page, `${origin}/api/v1/auth/session`);
    expect(me).toMatchObject({ status: 200, body: { data: { id: session.id, member: { role: 'owner' } } } });
    const write = (headers: Record<string, string>) => pageFetch(page, tickets(), { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ title: 'From the browser' }) });
    const before = await ticketCount();
    expect(await write({})).toMatchObject({ status: 403, body: { error: { code: 'csrf_token_invalid' } } });
    expect(await ticketCount()).toBe(before);
    expect(await write({ 'x-csrf-token': session.csrfToken })).toMatchObject({ status: 201 });
    expect(await ticketCount()).toBe(before + 1);
    await context.close();
  });

  it('a cross-site request refused: another site\'s page sends no cookie, reads nothing, and writes nothing', async () => {
    const { context, page: own, session } = await signedIn();
    const page = await context.newPage();
    await page.goto(`${evilOrigin}/`);
    const before = await ticketCount();
    // a "simple" cross-site POST (no preflight) with credentials: SameSite=Strict keeps the cookie home
    const post = await pageFetch(page, tickets(), { method: 'POST', credentials: 'include', headers: { 'content-type': 'text/plain', 'x-csrf-token': session.csrfToken }, body: JSON.stringify({ title: 'forged' }) });
    const read = await pageFetch(page, `${origin}/api/v1/auth/session`, { credentials: 'include' });
    // no CORS header for a cookie request: the page cannot read either answer
    expect(post).toEqual({ error: expect.stringContaining('Failed to fetch') });
    expect(read).toEqual({ error: expect.stringContaining('Failed to fetch') });
    // a form posted to the API from that site: refused as well
    await page.setContent(`<form method="post" action="${tickets()}" enctype="text/plain"><input name='{"title":"forged","x":"' value='"}'></form>`);
    const [navigation] = await Promise.all([page.waitForNavigation(), page.evaluate(`document.querySelector('form').submit()`)]);
    expect(navigation?.status()).toBeGreaterThanOrEqual(400);
    expect(await ticketCount()).toBe(before);
    // the session itself is unharmed: its own page still works
    expect(await pageFetch(own, `${origin}/api/v1/auth/session`)).toMatchObject({ status: 200 });
    await context.close();
  });

  it('a session revoked mid-use: the open page\'s next request is 401 session_invalid', async () => {
    const { context, page, session } = await signedIn();
    expect(await pageFetch(page, tickets())).toMatchObject({ status: 200 });
    expectOk(await tp.api.delete(`${tp.teamPath}/sessions/${session.id}`), 200);
    expect(await pageFetch(page, tickets())).toMatchObject({ status: 401, body: { error: { code: 'session_invalid' } } });
    const write = await pageFetch(page, tickets(), { method: 'POST', headers: { 'content-type': 'application/json', 'x-csrf-token': session.csrfToken }, body: '{"title":"late"}' });
    expect(write).toMatchObject({ status: 401, body: { error: { code: 'session_invalid' } } });
    await context.close();
  });
});
