/**
 * What a team sets up first (issue 35 item 5), in Chromium: members and invites, API keys (shown
 * once, revoked), a webhook with its delivery log and redeliver, the widget's settings with a live
 * preview; and axe-core with no serious or critical violation on every admin page and, in the dark
 * colour scheme, on the inbox and a ticket.
 */
import type { Browser, Page } from 'playwright-core';
import { Receiver } from '@helpdesk/testing';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { expectOk } from '../platform/helpdesk-helpers';
import { browserDescribe, consoleBuilt, customerTicket, launchBrowser, originOf, seriousViolations, signIn, until, type SignedIn } from './console-helpers';

browserDescribe('admin.browser.test')('the console: admin pages and accessibility', () => {
  let tp: TestPlatform;
  let browser: Browser;
  let origin: string;
  let me: SignedIn;
  let page: Page;
  let receiver: Receiver;

  const api = (path: string) => `/teams/${tp.team.teamId}${path}`;

  beforeAll(async () => {
    consoleBuilt();
    tp = await startTestPlatform({ webhooks: { allowLoopback: true, pollIntervalMs: 50 } });
    origin = originOf(tp);
    receiver = await Receiver.start((_r, n) => ({ status: n === 1 ? 500 : 200 }));
    browser = await launchBrowser();
    me = await signIn(browser, tp, tp.team);
    page = me.page;
    page.on('dialog', (d) => void d.accept());
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await receiver?.close();
    await tp?.stop();
  }, 60_000);
  afterEach(() => expect(me.problems).toEqual([]));

  it('members and invites: invite, see it pending, revoke it', async () => {
    await page.goto(`${origin}/app/admin/members`);
    await page.getByRole('heading', { name: 'Members and invites' }).waitFor();
    await page.getByLabel('Email').fill('new.agent@example.com');
    await page.getByLabel('Role', { exact: true }).selectOption('agent');
    await page.getByRole('button', { name: 'Send invite' }).click();
    await page.getByRole('button', { name: 'Revoke invite to new.agent@example.com' }).waitFor();
    expect(expectOk(await tp.api.get(api('/invites'), { key: tp.team.sk_live }), 200).map((i: any) => i.email)).toContain('new.agent@example.com');
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Revoke invite to new.agent@example.com' }).click();
    await page.getByRole('button', { name: 'Revoke invite to new.agent@example.com' }).waitFor({ state: 'detached' });
    expect(expectOk(await tp.api.get(api('/invites'), { key: tp.team.sk_live }), 200)).toEqual([]);
  }, 60_000);

  it('API keys: a new key is shown once and works; revoking it ends it', async () => {
    await page.goto(`${origin}/app/admin/api-keys`);
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    await page.getByLabel('Name').fill('CI export');
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = await page.getByLabel('New key').inputValue();
    expect(key).toMatch(/^sk_live_/);
    expect((await tp.api.get('/auth/whoami', { key })).status).toBe(200);
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Done' }).click();
    await page.getByRole('button', { name: 'Revoke CI export' }).click();
    await page.getByRole('button', { name: 'Revoke CI export' }).waitFor({ state: 'detached' });
    await until('the key to stop working', async () => (await tp.api.get('/auth/whoami', { key })).status === 401);
  }, 60_000);

  it('webhooks: add one (secret shown once), its delivery log with attempts, redeliver', async () => {
    await page.goto(`${origin}/app/admin/webhooks`);
    await page.getByRole('heading', { name: 'Webhooks' }).waitFor();
    await page.getByLabel('Name').fill('Receiver');
    await page.getByLabel('HTTPS URL').fill(receiver.url());
    await page.getByLabel(/^Events/).fill('ticket.created');
    await page.getByRole('button', { name: 'Add webhook' }).click();
    expect(await page.getByLabel('Signing secret').inputValue()).toMatch(/^whsec_/);
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Done' }).click();
    await customerTicket(tp, tp.team, 'Delivered somewhere');
    await page.getByRole('link', { name: 'Deliveries of Receiver' }).click();
    await page.getByRole('heading', { name: 'Deliveries of Receiver' }).waitFor();
    // The receiver refuses the first attempt (500): the log shows the delivery and its attempt.
    await page.locator('.delivery', { hasText: 'ticket.created' }).waitFor();
    await page.locator('.delivery summary').first().click();
    await page.locator('.delivery td', { hasText: '500' }).first().waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    const before = receiver.requests.length;
    await page.getByRole('button', { name: 'Redeliver' }).first().click();
    await page.locator('.toast', { hasText: 'Redelivery queued.' }).waitFor();
    await until('the redelivery', async () => receiver.requests.length > before);
  }, 60_000);

  it("sessions: another browser's session is listed and revoked; that browser is signed out", async () => {
    const other = await signIn(browser, tp, tp.team);
    const otherCookie = (await other.context.cookies()).find((c) => c.name === 'helpdesk_session')!.value;
    await page.goto(`${origin}/app/admin/sessions`);
    await page.getByRole('heading', { name: 'Sessions' }).waitFor();
    await page.getByText('(this browser)').waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    // The other browser's session, as it answers itself.
    const theirs = ((await (await fetch(`${origin}/api/v1/auth/session`, { headers: { cookie: `helpdesk_session=${otherCookie}`, origin } })).json()) as any).data.id as string;
    expect(expectOk(await tp.api.get(api('/sessions'), { key: tp.team.sk_live }), 200).map((s: any) => s.id)).toContain(theirs);
    await page.getByRole('button', { name: `Revoke session ${theirs}` }).click();
    await page.getByRole('button', { name: `Revoke session ${theirs}` }).waitFor({ state: 'detached' });
    await until('the other browser signed out', async () => (await fetch(`${origin}/api/v1/auth/session`, { headers: { cookie: `helpdesk_session=${otherCookie}`, origin } })).status === 401);
    await other.page.reload();
    await other.page.waitForURL(`${origin}/app/sign-in`);
    await other.context.close();
  }, 60_000);

  it('the widget: settings saved, the preview follows each change as it is typed', async () => {
    await page.goto(`${origin}/app/admin/widget`);
    await page.getByRole('heading', { name: 'Chat widget' }).waitFor();
    await page.getByLabel('Greeting').fill('Hello from the preview');
    expect(await page.textContent('.preview-greeting')).toBe('Hello from the preview');
    await page.getByLabel('Colour as #rrggbb').fill('#ffdd00');
    // A light colour gets black text, as the widget itself does.
    expect(await page.evaluate(`getComputedStyle(document.querySelector('.preview-launcher')).color`)).toBe('rgb(0, 0, 0)');
    await page.getByLabel('Position').selectOption('top-left');
    expect(await page.getAttribute('[data-testid=widget-preview]', 'class')).toContain('v-top h-left');
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Save widget settings' }).click();
    await page.locator('.toast', { hasText: 'Widget settings saved.' }).waitFor();
    const saved = expectOk(await tp.api.get(api('/settings/widget'), { key: tp.team.sk_live }), 200);
    expect([saved.greeting, saved.primaryColor, saved.position]).toEqual(['Hello from the preview', '#ffdd00', 'top-left']);
  }, 60_000);

  it('the inbox and a ticket in the dark colour scheme: no serious axe violation', async () => {
    const t = await customerTicket(tp, tp.team, 'In the dark', { priority: 'urgent' });
    expectOk(await tp.api.post(api(`/tickets/${t.id}/messages`), { content: 'A note in the dark.', messageType: 'internal' }, { key: tp.team.sk_live }), 201);
    const dark = await signIn(browser, tp, tp.team, { colorScheme: 'dark' });
    await dark.page.goto(`${origin}/app/`);
    await dark.page.waitForSelector(`li[data-ticket-id="${t.id}"]`);
    expect(await seriousViolations(dark.page)).toEqual([]);
    await dark.page.goto(`${origin}/app/tickets/${t.id}`);
    await dark.page.locator('.message.note').waitFor();
    expect(await seriousViolations(dark.page)).toEqual([]);
    expect(dark.problems).toEqual([]);
    await dark.context.close();
  }, 60_000);
});
