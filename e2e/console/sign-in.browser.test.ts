/**
 * Signing in to the agent console and what a session may not do (issue 35 items 1 and "bad input"):
 * the email page, the link's page and its Sign in button, clear pages for an expired, a used and a
 * forged link, sign-out; a session revoked while the console is open ends with a clear page and
 * changes nothing more; a page of another site cannot make the member's browser write (and a forged
 * cookie, a missing CSRF token and a wrong Origin are documented 4xx that change nothing); another
 * team's ticket is not found. axe-core on each page.
 */
import { createServer, type Server } from 'node:http';
import type { Browser } from 'playwright-core';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { expectOk } from '../platform/helpdesk-helpers';
import { browserDescribe, consoleBuilt, customerTicket, launchBrowser, memberOfKey, originOf, seriousViolations, signIn, signInToken, watchProblems } from './console-helpers';

browserDescribe('sign-in.browser.test')('the console: sign-in and sessions', () => {
  let tp: TestPlatform;
  let browser: Browser;
  let origin: string;

  beforeAll(async () => {
    consoleBuilt();
    tp = await startTestPlatform();
    origin = originOf(tp);
    browser = await launchBrowser();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await tp?.stop();
  }, 60_000);

  const ticketCount = async () => expectOk(await tp.api.get(`/teams/${tp.team.teamId}/tickets`, { key: tp.team.sk_live }), 200).length as number;

  it('the email page: sends a link, says "check your mail" whatever the address; no serious axe violation', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const problems = watchProblems(page);
    await page.goto(`${origin}/app/`);
    await page.waitForURL(`${origin}/app/sign-in`);
    expect(await seriousViolations(page)).toEqual([]);
    const owner = await memberOfKey(tp, tp.team.sk_live);
    await page.getByLabel('Work email').fill(owner.email);
    await page.getByRole('button', { name: 'Email me a sign-in link' }).click();
    await page.getByRole('heading', { name: 'Check your mail' }).waitFor();
    expect(await page.textContent('main')).toContain(owner.email);
    expect(await seriousViolations(page)).toEqual([]);
    // An address that is nobody's gets the same answer (no account enumeration).
    await page.getByRole('button', { name: 'Use another address' }).click();
    await page.getByLabel('Work email').fill('nobody-here@example.com');
    await page.getByRole('button', { name: 'Email me a sign-in link' }).click();
    await page.getByRole('heading', { name: 'Check your mail' }).waitFor();
    expect(problems).toEqual([]);
    await context.close();
  }, 60_000);

  it('the link opens a page with a Sign in button; it signs in (HttpOnly cookie), and the link is used up', async () => {
    const owner = await memberOfKey(tp, tp.team.sk_live);
    const token = await signInToken(tp, tp.team.teamId);
    const context = await browser.newContext();
    const page = await context.newPage();
    const problems = watchProblems(page);
    await page.goto(`${origin}/app/sign-in?token=${encodeURIComponent(token)}`);
    // Opening the page signs nothing in (a mail scanner opening links uses none up).
    expect(await context.cookies()).toEqual([]);
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForSelector('h1#inbox-title');
    expect(page.url()).toBe(`${origin}/app/`);
    expect(await page.textContent('.account-name')).toBe(owner.name);
    const [cookie] = await context.cookies();
    expect(cookie).toMatchObject({ name: 'helpdesk_session', httpOnly: true, sameSite: 'Strict', path: '/api/v1' });
    expect(await page.evaluate('document.cookie')).not.toContain('helpdesk_session');

    // The same link again, in another browser: "already used", and no session.
    const other = await browser.newContext();
    const again = await other.newPage();
    await again.goto(`${origin}/app/sign-in?token=${encodeURIComponent(token)}`);
    await again.getByRole('button', { name: 'Sign in' }).click();
    await again.getByRole('heading', { name: 'This sign-in link was already used' }).waitFor();
    expect(await other.cookies()).toEqual([]);
    expect(await seriousViolations(again)).toEqual([]);
    await other.close();

    // Sign out: back to the sign-in page, the cookie is gone and the API refuses the old session.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${origin}/app/sign-in`);
    expect((await context.cookies()).filter((c) => c.name === 'helpdesk_session')).toEqual([]);
    const after = await fetch(`${origin}/api/v1/auth/session`, { headers: { cookie: `helpdesk_session=${cookie.value}` } });
    expect(after.status).toBe(401);
    expect(problems).toEqual([]);
    await context.close();
  }, 60_000);

  it('an expired link and a forged one get pages that say so, and no session', async () => {
    const token = await signInToken(tp, tp.team.teamId);
    await tp.platform.workspace.conn.collection('sign_in_links').updateMany({ teamId: tp.team.teamId, usedAt: null }, { $set: { expiresAt: new Date(Date.now() - 1000) } });
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${origin}/app/sign-in?token=${encodeURIComponent(token)}`);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'This sign-in link has expired' }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await page.goto(`${origin}/app/sign-in?token=${encodeURIComponent(`${token.slice(0, -4)}AAAA`)}`);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'This sign-in link is not valid' }).waitFor();
    expect(await context.cookies()).toEqual([]);
    // "Get a new link" leads back to the email page.
    await page.getByRole('link', { name: 'Get a new link' }).click();
    await page.getByLabel('Work email').waitFor();
    await context.close();
  }, 60_000);

  it('a session revoked while the console is open: the next action says the session ended, and nothing was written', async () => {
    const { context, page } = await signIn(browser, tp, tp.team);
    const t = await customerTicket(tp, tp.team, 'Revoked mid-use');
    await page.goto(`${origin}/app/tickets/${t.id}`);
    await page.waitForSelector('#ticket-title');
    // The owner revokes every session of theirs through the API (as the sessions admin page would).
    const sessions = expectOk(await tp.api.get(`/teams/${tp.team.teamId}/sessions`, { key: tp.team.sk_live }), 200);
    for (const s of sessions) expectOk(await tp.api.delete(`/teams/${tp.team.teamId}/sessions/${s.id}`, { key: tp.team.sk_live }), 200);
    await page.getByLabel(/Reply to the customer/).fill('This must not be sent.');
    await page.getByRole('button', { name: 'Send reply' }).click();
    await page.getByRole('heading', { name: 'Your session has ended' }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    const ticket = expectOk(await tp.api.get(`/teams/${tp.team.teamId}/tickets/${t.id}`, { key: tp.team.sk_live }), 200);
    expect(ticket.messages.map((m: { content: string }) => m.content)).not.toContain('This must not be sent.');
    await context.close();
  }, 60_000);

  it("a page of another site cannot write with the member's session; bad cookies, CSRF tokens and origins are refused", async () => {
    const { context, page } = await signIn(browser, tp, tp.team);
    const before = await ticketCount();
    // Another site (another host name and port) with a form that posts to the API in the member's browser.
    const target = `${origin}/api/v1/teams/${tp.team.teamId}/tickets`;
    const evil: Server = createServer((_req, res) => {
      res.setHeader('content-type', 'text/html');
      res.end(
        `<!doctype html><html lang="en"><title>x</title><form id="f" method="post" action="${target}" enctype="text/plain">` +
          `<input name='{"title":"cross-site","x":"' value='"}'></form><script>document.getElementById('f').submit()</script></html>`,
      );
    });
    await new Promise<void>((r) => evil.listen(0, '127.0.0.1', r));
    const evilPort = (evil.address() as { port: number }).port;
    const attacker = await context.newPage();
    const answered = attacker.waitForResponse((r) => r.url() === target);
    await attacker.goto(`http://localhost:${evilPort}/`);
    const res = await answered;
    expect([401, 403]).toContain(res.status());
    // And with fetch, credentials included.
    await attacker.goto(`http://localhost:${evilPort}/`).catch(() => undefined);
    const fetched = await attacker.evaluate(async (url) => {
      try {
        const r = await fetch(url, { method: 'POST', credentials: 'include', headers: { 'content-type': 'text/plain' }, body: '{"title":"cross-site fetch"}' });
        return r.status;
      } catch {
        return 'blocked';
      }
    }, target);
    expect(fetched === 'blocked' || fetched === 0 || fetched >= 400).toBe(true);
    evil.close();

    // The member's own cookie, sent by a program: no CSRF token, a wrong Origin, a forged cookie.
    const cookie = (await context.cookies()).find((c) => c.name === 'helpdesk_session')!.value;
    const session = (await (await fetch(`${origin}/api/v1/auth/session`, { headers: { cookie: `helpdesk_session=${cookie}`, origin } })).json()) as any;
    const post = (headers: Record<string, string>) =>
      fetch(target, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ title: 'should not exist' }) });
    const noCsrf = await post({ cookie: `helpdesk_session=${cookie}`, origin });
    expect([noCsrf.status, ((await noCsrf.json()) as any).error.code]).toEqual([403, 'csrf_token_invalid']);
    const wrongOrigin = await post({ cookie: `helpdesk_session=${cookie}`, origin: 'https://evil.example', 'x-csrf-token': session.data.csrfToken });
    expect([wrongOrigin.status, ((await wrongOrigin.json()) as any).error.code]).toEqual([403, 'origin_not_allowed']);
    const forged = await post({ cookie: `helpdesk_session=${cookie.slice(0, -3)}xyz`, origin, 'x-csrf-token': session.data.csrfToken });
    expect(forged.status).toBe(401);
    expect(await ticketCount()).toBe(before);
    await page.close();
    await context.close();
  }, 90_000);

  it("another team's ticket is not found in the console", async () => {
    const theirs = await customerTicket(tp, tp.otherTeam, 'Not yours');
    const { context, page } = await signIn(browser, tp, tp.team);
    await page.goto(`${origin}/app/tickets/${theirs.id}`);
    await page.getByRole('heading', { name: 'Ticket not available' }).waitFor();
    expect(await page.textContent('[role=alert]')).toMatch(/not found|no such/i);
    expect(await seriousViolations(page)).toEqual([]);
    // A path the console does not have: its own "not found" page.
    await page.goto(`${origin}/app/no/such/page`);
    await page.getByRole('heading', { name: 'Not found' }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await context.close();
  }, 60_000);
});
